package testbed

import "github.com/detsim/detsim/network"

// policyMTU is the link's mtu_bytes. Until the network model has the
// field, every link has Ethernet's 1500 bytes.
func policyMTU(network.Policy) int64 { return 1500 }
