package protocol

// Version is the newest client protocol version this build speaks. Version
// 2 requires the user's token in client-hello.
const Version = 2

// SupportedVersions lists every client protocol version this build's host
// accepts, newest first. Version 1 clients carry no token, so a host
// refuses them.
var SupportedVersions = []int{2}

// ClientOfferedVersions is what this build offers in client-hello: version
// 1 too, so that a new process can still join a host of an older build
// (which ignores the token) and, when that host goes, take over from it.
var ClientOfferedVersions = []int{2, 1}

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
