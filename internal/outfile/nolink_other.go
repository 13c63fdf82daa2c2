//go:build !unix

package outfile

func isNoLink(error) bool { return true }
