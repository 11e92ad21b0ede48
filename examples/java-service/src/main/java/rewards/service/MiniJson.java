package rewards.service;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The service's JSON (a real one would use Jackson): maps, lists, strings, numbers as text-exact Long/Double, booleans, null. */
final class MiniJson {
    private final String s;
    private int i;

    private MiniJson(String s) {
        this.s = s;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(String text) {
        MiniJson p = new MiniJson(text);
        Object v = p.read();
        if (!(v instanceof Map)) throw new IllegalArgumentException("not a JSON object: " + text);
        return (Map<String, Object>) v;
    }

    static String write(Object v) {
        if (v == null) return "null";
        if (v instanceof Map<?, ?> m) {
            List<String> parts = new ArrayList<>();
            m.forEach((k, x) -> parts.add(write(String.valueOf(k)) + ":" + write(x)));
            return "{" + String.join(",", parts) + "}";
        }
        if (v instanceof List<?> l) {
            List<String> parts = new ArrayList<>();
            l.forEach(x -> parts.add(write(x)));
            return "[" + String.join(",", parts) + "]";
        }
        if (v instanceof Number || v instanceof Boolean) return v.toString();
        StringBuilder b = new StringBuilder("\"");
        for (char c : v.toString().toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    private char peek() {
        while (Character.isWhitespace(s.charAt(i))) i++;
        return s.charAt(i);
    }

    private Object read() {
        char c = peek();
        if (c == '{') {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            while (peek() != '}') {
                String k = (String) read();
                peek();
                i++; // ':'
                m.put(k, read());
                if (peek() == ',') i++;
            }
            i++;
            return m;
        }
        if (c == '[') {
            List<Object> l = new ArrayList<>();
            i++;
            while (peek() != ']') {
                l.add(read());
                if (peek() == ',') i++;
            }
            i++;
            return l;
        }
        if (c == '"') {
            StringBuilder b = new StringBuilder();
            for (i++; s.charAt(i) != '"'; i++) {
                char x = s.charAt(i);
                if (x == '\\') {
                    x = s.charAt(++i);
                    if (x == 'u') {
                        b.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                        i += 4;
                        continue;
                    }
                    x = switch (x) { case 'n' -> '\n'; case 't' -> '\t'; case 'r' -> '\r'; case 'b' -> '\b'; case 'f' -> '\f'; default -> x; };
                }
                b.append(x);
            }
            i++;
            return b.toString();
        }
        int start = i;
        while (i < s.length() && ",}] \n\r\t".indexOf(s.charAt(i)) < 0) i++;
        String word = s.substring(start, i);
        return switch (word) {
            case "true" -> true;
            case "false" -> false;
            case "null" -> null;
            default -> word.matches("-?\\d+") ? (Object) Long.valueOf(word) : (Object) Double.valueOf(word);
        };
    }
}
