package node

import "syscall"

const syscallEADDRINUSE = syscall.EADDRINUSE
