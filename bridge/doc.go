// Package bridge is the studio-bridge network: the host that owns the
// loopback port and the Studio plugin sessions, the client link that joins
// it from other processes, failover between them, and the instance-aware
// resolver that turns "which Studio?" into one session.
//
// Callers use Connect and the Conn it returns; they never learn or care
// whether this process is the host or a client, and a failover changes the
// role underneath them without changing the value they hold. Requests that
// were in flight when a host died fail at once with UNKNOWN_OUTCOME instead
// of hanging until their timeout.
package bridge
