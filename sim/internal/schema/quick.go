package schema

import (
	"encoding/json"
	"math/big"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// quick decides the common case without the library's validator: the
// request and answer shapes are flat objects of typed, bounded strings
// and numbers, and the library's walk (instance locations, error
// values, closures) was the largest share of a write request's
// allocations. quick answers ok=false whenever a schema uses a keyword
// it does not implement; Validate then asks the library. Validate trusts
// quick only when it says valid: every refusal, and every error message,
// still comes from the library (TestQuickAgrees cross-checks both).
func quick(s *jsonschema.Schema, v any, depth int) (valid, ok bool) {
	if depth > 32 {
		return false, false
	}
	if s.Always != nil {
		return *s.Always, true
	}
	if s.Format != "" || s.RecursiveRef != nil || s.DynamicRef != nil || s.Not != nil || s.If != nil ||
		len(s.AnyOf) > 0 || len(s.Extensions) > 0 || s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil {
		return false, false
	}
	valid = true
	and := func(v, ok2 bool) {
		valid = valid && v
		ok = ok && ok2
	}
	ok = true
	if s.Ref != nil {
		and(quick(s.Ref, v, depth+1))
	}
	for _, sub := range s.AllOf {
		and(quick(sub, v, depth+1))
	}
	if len(s.OneOf) > 0 {
		n := 0
		for _, sub := range s.OneOf {
			vv, ok2 := quick(sub, v, depth+1)
			if !ok2 {
				return false, false
			}
			if vv {
				n++
			}
		}
		and(n == 1, true)
	}
	if len(s.Types) > 0 {
		match := false
		for _, t := range s.Types {
			match = match || isType(t, v)
		}
		and(match, true)
	}
	if s.Constant != nil || s.Enum != nil {
		if !scalar(v) {
			return false, false
		}
		if s.Constant != nil {
			and(scalar(s.Constant[0]) && s.Constant[0] == v, scalar(s.Constant[0]))
		}
		if s.Enum != nil {
			found := false
			for _, e := range s.Enum {
				if !scalar(e) {
					return false, false
				}
				found = found || e == v
			}
			and(found, true)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		and(quickObject(s, x, depth))
	case []any:
		if s.MinItems != -1 || s.MaxItems != -1 || s.UniqueItems || s.Items != nil || s.AdditionalItems != nil ||
			s.PrefixItems != nil || s.Items2020 != nil || s.Contains != nil {
			return false, false
		}
	case string:
		and(quickString(s, x))
	case json.Number:
		and(quickNumber(s, x))
	case bool, nil:
	default:
		return false, false // not a value DecodeJSON makes
	}
	return valid && ok, ok
}

// quickString is quick for a string: the switch on v's type is quick's
// last check, so ok=false here is quick's ok=false.
func quickString(s *jsonschema.Schema, x string) (valid, ok bool) {
	if s.ContentEncoding != "" || s.ContentMediaType != "" || s.ContentSchema != nil {
		return false, false
	}
	valid = true
	if s.MinLength != -1 || s.MaxLength != -1 {
		n := utf8.RuneCountInString(x)
		valid = (s.MinLength == -1 || n >= s.MinLength) && (s.MaxLength == -1 || n <= s.MaxLength)
	}
	if s.Pattern != nil {
		valid = valid && s.Pattern.MatchString(x)
	}
	return valid, true
}

// quickNumber is quick for a number, as quickString for a string.
func quickNumber(s *jsonschema.Schema, x json.Number) (valid, ok bool) {
	if s.MultipleOf != nil {
		return false, false
	}
	if s.Minimum == nil && s.Maximum == nil && s.ExclusiveMinimum == nil && s.ExclusiveMaximum == nil {
		return true, true
	}
	if v, decided := zeroBounds(s, x); decided {
		return v, true
	}
	r, isNum := new(big.Rat).SetString(string(x))
	if !isNum {
		return false, false
	}
	return (s.Minimum == nil || r.Cmp(s.Minimum) >= 0) && (s.Maximum == nil || r.Cmp(s.Maximum) <= 0) &&
		(s.ExclusiveMinimum == nil || r.Cmp(s.ExclusiveMinimum) > 0) &&
		(s.ExclusiveMaximum == nil || r.Cmp(s.ExclusiveMaximum) < 0), true
}

func quickObject(s *jsonschema.Schema, x map[string]any, depth int) (valid, ok bool) {
	if s.PropertyNames != nil || len(s.PatternProperties) > 0 || s.Dependencies != nil ||
		s.DependentRequired != nil || s.DependentSchemas != nil {
		return false, false
	}
	if (s.MinProperties != -1 && len(x) < s.MinProperties) || (s.MaxProperties != -1 && len(x) > s.MaxProperties) {
		return false, true
	}
	for _, r := range s.Required {
		if _, has := x[r]; !has {
			return false, true
		}
	}
	valid, ok = true, true
	for k, val := range x {
		if ps, has := s.Properties[k]; has {
			v, ok2 := quick(ps, val, depth+1)
			valid, ok = valid && v, ok && ok2
			continue
		}
		switch ap := s.AdditionalProperties.(type) {
		case nil:
		case bool:
			valid = valid && ap
		case *jsonschema.Schema:
			v, ok2 := quick(ap, val, depth+1)
			valid, ok = valid && v, ok && ok2
		default:
			return false, false
		}
	}
	return valid, ok
}

// scalar values compare with == the way the library compares them.
func scalar(v any) bool {
	switch v.(type) {
	case string, bool, nil:
		return true
	}
	return false
}

func isType(t string, v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return t == "object"
	case []any:
		return t == "array"
	case string:
		return t == "string"
	case bool:
		return t == "boolean"
	case nil:
		return t == "null"
	case json.Number:
		if t == "number" {
			return true
		}
		if t == "integer" {
			r, isNum := new(big.Rat).SetString(string(x))
			return isNum && r.IsInt()
		}
	}
	return false
}

// zeroBounds decides the bounds when each present one is zero (as in
// "minimum": 0, the amounts' bound) from x's sign, read off its literal,
// without the big.Rat parse that was 2.5% of GetReward's server CPU:
// x is zero when every digit before its exponent is 0, else it has the
// sign of its leading '-'. decided is false for any other bound.
func zeroBounds(s *jsonschema.Schema, x json.Number) (valid, decided bool) {
	for _, b := range [...]*big.Rat{s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum} {
		if b != nil && b.Sign() != 0 {
			return false, false
		}
	}
	if len(x) == 0 {
		return false, false
	}
	sign := 0
	for i := 0; i < len(x) && x[i] != 'e' && x[i] != 'E'; i++ {
		if x[i] >= '1' && x[i] <= '9' {
			sign = 1
			break
		}
	}
	if sign != 0 && x[0] == '-' {
		sign = -1
	}
	return (s.Minimum == nil || sign >= 0) && (s.Maximum == nil || sign <= 0) &&
		(s.ExclusiveMinimum == nil || sign > 0) && (s.ExclusiveMaximum == nil || sign < 0), true
}
