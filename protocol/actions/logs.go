package actions

// Logs is the logs action's name.
const Logs = "logs"

// LogsRequest reads the plugin's Output buffer.
type LogsRequest struct {
	Count           int      `json:"count"`
	Direction       string   `json:"direction"` // head or tail
	Levels          []string `json:"levels,omitempty"`
	IncludeInternal bool     `json:"includeInternal"`
}

// LogsResult is the matching lines, oldest first; Total counts every
// matching line the buffer holds.
type LogsResult struct {
	Entries        []LogLine `json:"entries"`
	Total          int       `json:"total"`
	BufferCapacity int       `json:"bufferCapacity"`
}

// Subscribe and Unsubscribe are the event subscription actions' names.
const (
	Subscribe   = "subscribe"
	Unsubscribe = "unsubscribe"
)

// EventLog is the one event kind a session streams today: each Output line
// as an event payload (a LogLine).
const EventLog = "log"

// SubscribeRequest starts (subscribe) or stops (unsubscribe) events.
type SubscribeRequest struct {
	Events          []string `json:"events"`
	IncludeInternal bool     `json:"includeInternal"`
}

// SubscribeResult lists the events subscribed after the request.
type SubscribeResult struct {
	Events []string `json:"events"`
}
