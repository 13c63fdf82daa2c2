//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// WriteNew creates the file path, which must not exist (O_EXCL: never
// through a symbolic link, never over anything), and writes data to it.
// It works on the bare descriptor: an *os.File's opening registers a
// regular file with the poller, which refuses it, at three system calls
// a file, as much as the open, write and close themselves
// (docs/BENCHMARKS.md, "Fewer files made and removed").
func WriteNew(path string, data []byte, perm os.FileMode) error {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	for len(data) > 0 && err == nil {
		var n int
		n, err = syscall.Write(fd, data)
		if err == syscall.EINTR {
			err = nil
			continue
		}
		if err == nil && n == 0 {
			err = syscall.EIO
		}
		data = data[max(n, 0):]
	}
	if cerr := syscall.Close(fd); err == nil && cerr != nil && cerr != syscall.EINTR {
		err = cerr
	}
	if err != nil {
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// OpenPlain opens path as os.OpenFile does, for a regular file that is
// never read or written through the poller: a file os.OpenFile opens
// costs, besides the open, four fcntl calls and an epoll_ctl the kernel
// refuses for a regular file; os.NewFile on the bare descriptor costs one
// fcntl (docs/BENCHMARKS.md, "The bundle built in its stage").
func OpenPlain(path string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == nil {
			return os.NewFile(uintptr(fd), path), nil
		}
		if err != syscall.EINTR {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
}
