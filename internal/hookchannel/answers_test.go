package hookchannel

import (
	"testing"
	"time"
)

func TestAnswerTimes(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name          string
		times         map[time.Duration]int // duration → how many posts took it
		p50, p99, max time.Duration         // p50 and p99 within 20 % above
	}{
		{"none", nil, 0, 0, 0},
		{"one", map[time.Duration]int{3 * ms: 1}, 3 * ms, 3 * ms, 3 * ms},
		{"below the floor", map[time.Duration]int{10 * time.Microsecond: 5}, 10 * time.Microsecond, 10 * time.Microsecond, 10 * time.Microsecond},
		{"a slow one in a hundred", map[time.Duration]int{ms: 99, 40 * ms: 1}, ms, ms, 40 * ms},
		{"two slow in a hundred", map[time.Duration]int{ms: 98, 40 * ms: 2}, ms, 40 * ms, 40 * ms},
		{"past the last bucket", map[time.Duration]int{ms: 1, time.Minute: 3}, time.Minute, time.Minute, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a answerTimes
			n := 0
			for d, k := range tt.times {
				for range k {
					a.observe(d)
					n++
				}
			}
			s := a.summary()
			within := func(got, want time.Duration) bool { return got >= want && got <= want*12/10 }
			if s.Count != uint64(n) || !within(s.P50, tt.p50) || !within(s.P99, tt.p99) || s.Max != tt.max {
				t.Fatalf("got %+v, want count %d, p50 %v, p99 %v, max %v", s, n, tt.p50, tt.p99, tt.max)
			}
		})
	}
}
