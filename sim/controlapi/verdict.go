package controlapi

// Verdict is POST /__sim/verify's answer: how many exchanges matched,
// which, and when the count did not hold, the closest others.
type Verdict struct {
	OK         bool       `json:"ok"`
	Count      int        `json:"count"`
	Matches    []uint64   `json:"matches"`
	NearMisses []NearMiss `json:"nearMisses"`
}

// NearMiss is an exchange that came close, and the first predicate it fails.
type NearMiss struct {
	Seq      uint64 `json:"seq"`
	Endpoint string `json:"endpoint"`
	Status   int    `json:"status"`
	Failed   string `json:"failed"`
}
