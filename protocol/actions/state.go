package actions

import "github.com/studio-bridge/studio-bridge/protocol"

// State is the state action's name.
const State = "state"

// StateRequest is the state action's payload: none ({}).
type StateRequest struct{}

// StateResult is the DataModel's run mode and place.
type StateResult struct {
	State     protocol.State `json:"state"`
	PlaceName string         `json:"placeName"`
	PlaceID   int64          `json:"placeId"`
	GameID    int64          `json:"gameId"`
}
