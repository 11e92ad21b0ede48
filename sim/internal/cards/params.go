package cards

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseAmount reads a non-negative plain decimal amount with at most two
// decimal places (GR-5 for GetReward, SDK-1 for client issuance).
func ParseAmount(s string) (float64, error) {
	if strings.ContainsAny(s, "eE") {
		return 0, fmt.Errorf("%s is not a plain decimal", s)
	}
	if _, frac, ok := strings.Cut(s, "."); ok && len(frac) > 2 {
		return 0, fmt.Errorf("%s has more than two decimal places", s)
	}
	a, err := strconv.ParseFloat(s, 64)
	if err != nil || a < 0 {
		return 0, fmt.Errorf("%s is not a non-negative number", s)
	}
	return a, nil
}

// DecodeParams decodes the inner JSON object of additionalParams into
// string values for targeting (GR-7, SDK-1). When allowed is not nil, a
// key outside it is an error.
func DecodeParams(inner []byte, allowed []string) (map[string]string, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(inner))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, errors.New("is not a JSON-encoded object")
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if allowed != nil && !slices.Contains(allowed, k) {
			return nil, fmt.Errorf("key %q is not one of %s", k, strings.Join(allowed, ", "))
		}
		switch t := v.(type) {
		case string:
			out[k] = t
		case json.Number, bool:
			out[k] = fmt.Sprint(t)
		case nil:
		default:
			return nil, fmt.Errorf("key %s is not a string, number or boolean", k)
		}
	}
	return out, nil
}
