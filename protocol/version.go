package protocol

// Version is the newest client protocol version this build speaks. Version
// 3 proves the user's token both ways by challenge–response (the host
// first); version 2 sent the raw token in client-hello.
const Version = 3

// SupportedVersions lists every client protocol version this build's host
// accepts, newest first. Versions 1 (no token) and 2 (the raw token on the
// wire) are refused, with a reject saying another version holds the port.
var SupportedVersions = []int{3}

// ClientOfferedVersions is what this build offers in client-hello: 3
// only. Offering 2 would let an older host, or anything answering as one,
// ask for the raw token; a process of an older build on the port is told
// apart by its reject instead (PROTOCOL.md, mixed versions).
var ClientOfferedVersions = []int{3}

// Negotiate picks the newest version that both this build and the peer speak.
// It reports false when there is none.
func Negotiate(offered []int) (int, bool) { return newestCommon(SupportedVersions, offered) }

// newestCommon is the first of mine (newest first) that offered holds too.
func newestCommon(mine, offered []int) (int, bool) {
	for _, v := range mine {
		for _, theirs := range offered {
			if v == theirs {
				return v, true
			}
		}
	}
	return 0, false
}
