package protocol

// Version is the newest protocol version this build speaks.
const Version = 1

// SupportedVersions lists every protocol version this build can speak, newest
// first.
var SupportedVersions = []int{1}

// Negotiate picks the newest version that both this build and the peer speak.
// It reports false when there is none.
func Negotiate(offered []int) (int, bool) {
	for _, mine := range SupportedVersions {
		for _, theirs := range offered {
			if mine == theirs {
				return mine, true
			}
		}
	}
	return 0, false
}
