package hookchannel

import (
	"math"
	"sync/atomic"
	"time"
)

// answerTimes counts how long the listener took to answer the posts it
// did not hold, in buckets 20 % wide from 50 µs to about 10 s, so that a
// percentile costs no per-post memory and is known to within a bucket.
// The listener hands each event on and answers; these say it does so
// quickly whatever the boards are doing.
type answerTimes struct {
	buckets [answerBuckets]atomic.Uint64
	max     atomic.Int64 // nanoseconds
}

const (
	answerFloor   = 50 * time.Microsecond
	answerGrowth  = 1.2
	answerBuckets = 68 // answerFloor × 1.2^67 ≈ 10 s; the last bucket takes the rest
)

// answerBound is the upper bound of bucket i.
func answerBound(i int) time.Duration {
	return time.Duration(float64(answerFloor) * math.Pow(answerGrowth, float64(i)))
}

func (a *answerTimes) observe(d time.Duration) {
	i := 0
	if d > answerFloor {
		i = min(int(math.Ceil(math.Log(float64(d)/float64(answerFloor))/math.Log(answerGrowth))), answerBuckets-1)
	}
	a.buckets[i].Add(1)
	for {
		m := a.max.Load()
		if int64(d) <= m || a.max.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// AnswerTimes is a summary of the listener's answer times: each quantile
// is the upper bound of the bucket it falls in (at most 20 % above the
// true value), Max is exact.
type AnswerTimes struct {
	Count         uint64
	P50, P99, Max time.Duration
}

func (a *answerTimes) summary() AnswerTimes {
	var counts [answerBuckets]uint64
	var s AnswerTimes
	for i := range counts {
		counts[i] = a.buckets[i].Load()
		s.Count += counts[i]
	}
	s.Max = time.Duration(a.max.Load())
	if s.Count == 0 {
		return s
	}
	quantile := func(q float64) time.Duration {
		rank := uint64(math.Ceil(q * float64(s.Count)))
		var seen uint64
		for i, n := range counts {
			if seen += n; seen >= rank {
				if i == answerBuckets-1 {
					return s.Max // the last bucket has no upper bound
				}
				return min(answerBound(i), s.Max)
			}
		}
		return s.Max
	}
	s.P50, s.P99 = quantile(0.50), quantile(0.99)
	return s
}
