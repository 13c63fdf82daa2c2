package planted

func pick(a, b chan int) int {
	select { // want `detlint\(select\): select statement \(picks among ready cases at random`
	case v := <-a:
		return v
	case v := <-b:
		return v
	}
}
