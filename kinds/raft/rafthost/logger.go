package rafthost

import "fmt"

// logger is etcd raft's Logger for simulated nodes. Its messages are
// not records: what they say, the records say in a fixed schema, and
// etcd's default logger writes wall-clock timestamps to stderr. Fatal
// panics instead of exiting the process, so host.run turns it into a
// raft_panic record like any other panic.
type logger struct{}

func (logger) Debug(...any)            {}
func (logger) Debugf(string, ...any)   {}
func (logger) Error(...any)            {}
func (logger) Errorf(string, ...any)   {}
func (logger) Info(...any)             {}
func (logger) Infof(string, ...any)    {}
func (logger) Warning(...any)          {}
func (logger) Warningf(string, ...any) {}
func (logger) Fatal(v ...any)          { panic(fmt.Sprint(v...)) }
func (logger) Fatalf(f string, v ...any) {
	panic(fmt.Sprintf(f, v...))
}
func (logger) Panic(v ...any) { panic(fmt.Sprint(v...)) }
func (logger) Panicf(f string, v ...any) {
	panic(fmt.Sprintf(f, v...))
}
