package planted

func background(work func()) {
	go work() // want `detlint\(goroutine\): go statement \(work outside the scheduler`
}
