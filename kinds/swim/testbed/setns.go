package testbed

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// inNamespace runs f on an OS thread switched into the network namespace
// ns. The switch is per thread, so f runs on a goroutine locked to its
// own thread; if the thread cannot be switched back, the goroutine ends
// still locked and the Go runtime discards the thread, so no other
// goroutine ever runs in ns by accident.
func inNamespace(ns string, f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		self, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		defer unix.Close(self)
		target, err := unix.Open(filepath.Join(netnsDir, ns), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		defer unix.Close(target)
		if err := unix.Setns(target, unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("entering namespace %s: %w", ns, err)
			return
		}
		ferr := f()
		if err := unix.Setns(self, unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("leaving namespace %s: %w", ns, err) // the thread dies locked
			return
		}
		runtime.UnlockOSThread()
		done <- ferr
	}()
	return <-done
}

// setSysctls writes net sysctls (paths under /proc/sys/net) inside ns:
// /proc/sys/net is the namespace of the thread that opens it.
func setSysctls(ns string, kv [][2]string) error {
	return inNamespace(ns, func() error {
		for _, x := range kv {
			if err := os.WriteFile(filepath.Join("/proc/sys/net", x[0]), []byte(x[1]), 0); err != nil {
				return fmt.Errorf("sysctl net/%s in %s: %w", x[0], ns, err)
			}
		}
		return nil
	})
}

// openTUN creates the TUN device name in namespace ns and returns it,
// non-blocking, so that reads wait in Go's poller and Close ends them.
// The device lives as long as the file is open.
func openTUN(ns, name string) (*os.File, error) {
	var f *os.File
	err := inNamespace(ns, func() error {
		fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != nil {
			return fmt.Errorf("opening /dev/net/tun: %w", err)
		}
		var req [unix.IFNAMSIZ + 64]byte // struct ifreq
		copy(req[:unix.IFNAMSIZ-1], name)
		*(*uint16)(unsafe.Pointer(&req[unix.IFNAMSIZ])) = unix.IFF_TUN | unix.IFF_NO_PI
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(unix.TUNSETIFF), uintptr(unsafe.Pointer(&req[0]))); e != 0 {
			unix.Close(fd)
			return fmt.Errorf("creating TUN device %s in %s: %w", name, ns, e)
		}
		f = os.NewFile(uintptr(fd), "/dev/net/tun:"+name)
		return nil
	})
	return f, err
}
