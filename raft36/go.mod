module github.com/detsim/detsim/raft36

go 1.26.8

require github.com/detsim/detsim v0.0.0

require (
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	go.etcd.io/raft/v3 v3.7.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)

replace github.com/detsim/detsim => ../

// The release before etcd-io/raft#397: readOnly keys pending reads by
// their request context (docs/raft.md, "etcd-io/etcd#20418, found again").
replace go.etcd.io/raft/v3 => go.etcd.io/raft/v3 v3.6.0
