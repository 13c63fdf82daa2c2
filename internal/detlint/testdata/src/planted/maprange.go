package planted

type membership map[string]int

func sum(m map[string]int, named membership) int {
	total := 0
	for _, v := range m { // want `detlint\(maprange\): range over map \(iteration order is random; iterate slices.Sorted\(maps.Keys\(m\)\)\)`
		total += v
	}
	for k := range named { // want `detlint\(maprange\): range over map`
		total += len(k)
	}
	return total
}

// sumGeneric ranges over a type parameter whose type set is only maps.
func sumGeneric[M ~map[K]int, K comparable](m M) int {
	total := 0
	for _, v := range m { // want `detlint\(maprange\): range over map`
		total += v
	}
	return total
}
