package journal

// MaxBodyDepth bounds the nesting of a body kept as JSON: a deeper body
// (a contract body nests a few levels) is kept as text, so every reader,
// and every encoder that nests it further (session export), reads it back.
const MaxBodyDepth = 64

// shallow reports whether JSON text nests at most MaxBodyDepth deep. It
// counts brackets outside strings; it does not validate.
func shallow(b []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > MaxBodyDepth {
				return false
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return true
}
