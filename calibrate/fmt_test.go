package calibrate

import "fmt"

func fmtS(format string, args ...any) string { return fmt.Sprintf(format, args...) }
