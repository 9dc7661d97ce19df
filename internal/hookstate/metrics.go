package hookstate

import "time"

// Sample aggregates one latency measure. The zero Sample has no data.
type Sample struct {
	Last  time.Duration `json:"last"`
	Max   time.Duration `json:"max"`
	Total time.Duration `json:"total"`
	Count int           `json:"count"`
}

// Valid reports whether the sample has data (the API shows none then).
func (s Sample) Valid() bool { return s.Count > 0 }

// Mean is the average, zero without data.
func (s Sample) Mean() time.Duration {
	if s.Count == 0 {
		return 0
	}
	return s.Total / time.Duration(s.Count)
}

func (s *Sample) add(d time.Duration) {
	if d < 0 {
		d = 0 // clock skew between the relay and us; never report negative latency
	}
	s.Last = d
	if d > s.Max {
		s.Max = d
	}
	s.Total += d
	s.Count++
}

// Metrics are a session's latency metrics, computed only from
// the times handed to Apply and Tick:
//
//   - HookLatency: arrival minus the event's own time (relay stamp or
//     payload timestamp), for every event that has one.
//   - Detection: how late a state change was noticed — arrival minus event
//     time for hook-driven changes, tick time minus the deadline for
//     corrections and inferred dialogs.
//   - PermissionResponse: from a dialog opening (the PermissionRequest, or
//     the tool's start for an inferred one) to the event that shows it was
//     answered (the tool running or ending, a reply event).
type Metrics struct {
	HookLatency        Sample `json:"hook_latency"`
	Detection          Sample `json:"state_change_detection"`
	PermissionResponse Sample `json:"permission_response"`
}

// Metrics returns the session's latency metrics.
func (m *Machine) Metrics() Metrics { return m.metrics }
