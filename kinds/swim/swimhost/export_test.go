package swimhost

// KindImpl is the kind's type, for tests that embed it to replace one
// method and keep every other, the optional interfaces included.
type KindImpl = kind
