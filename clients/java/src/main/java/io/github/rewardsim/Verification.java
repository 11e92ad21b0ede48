package io.github.rewardsim;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** A verify being written: ch.verify(endpoint, where).since(seq).times(1). */
public final class Verification {
    private final Channel channel;
    private final String endpoint;
    private final Map<String, ?> where;
    private Long since;

    Verification(Channel channel, String endpoint, Map<String, ?> where) {
        this.channel = channel;
        this.endpoint = endpoint;
        this.where = where;
    }

    /**
     * Count only exchanges from this X-Rewardsim-Seq on (inclusive).
     *
     * @param seq the X-Rewardsim-Seq to count from
     * @return this verify
     */
    public Verification since(long seq) {
        this.since = seq;
        return this;
    }

    /**
     * Exactly n calls matched, else AssertionError naming the near misses.
     *
     * @param n the count
     * @return the verify's answer
     */
    public Result times(int n) { return check("times", n, "exactly " + n + " time(s)"); }

    /**
     * At least n calls matched, else AssertionError naming the near misses.
     *
     * @param n the count
     * @return the verify's answer
     */
    public Result atLeast(int n) { return check("atLeast", n, "at least " + n + " time(s)"); }

    /**
     * At most n calls matched, else AssertionError.
     *
     * @param n the count
     * @return the verify's answer
     */
    public Result atMost(int n) { return check("atMost", n, "at most " + n + " time(s)"); }

    /**
     * No call matched, else AssertionError naming the ones that did.
     *
     * @return the verify's answer
     */
    public Result never() { return check("times", 0, "never"); }

    /** The answer of a verify that held. */
    public record Result(long count, List<Object> matches, List<Object> nearMisses) {}

    @SuppressWarnings("unchecked")
    private Result check(String field, int n, String want) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("channel", channel.name());
        body.put("endpoint", endpoint);
        body.put("where", where);
        if (since != null) body.put("since", since);
        body.put(field, n);
        Map<String, Object> res = (Map<String, Object>) channel.server().control("POST", "/__sim/verify", body);
        long count = res.get("count") instanceof Number c ? c.longValue() : -1;
        List<Object> misses = res.get("nearMisses") instanceof List<?> l ? (List<Object>) l : List.of();
        List<Object> matches = res.get("matches") instanceof List<?> l ? (List<Object>) l : List.of();
        if (!Boolean.TRUE.equals(res.get("ok"))) {
            String where = this.where.isEmpty() ? "" : " where " + Json.write(this.where);
            String list = misses.isEmpty() ? ""
                    : "\nnear misses:\n" + misses.stream().map(m -> "  " + describe(m)).collect(Collectors.joining("\n"));
            throw new AssertionError("expected " + endpoint + where + " on channel " + channel.name() + " " + want
                    + ", counted " + count + list);
        }
        return new Result(count, matches, misses);
    }

    // A near miss as the verify answer gives it: its sequence, endpoint and
    // the first predicate it fails.
    static String describe(Object m) {
        if (!(m instanceof Map<?, ?> miss)) return String.valueOf(m);
        Object why = null;
        for (String k : new String[] {"failed", "mismatch", "reason"}) {
            if (miss.get(k) != null) {
                why = miss.get(k);
                break;
            }
        }
        String head = (miss.get("seq") != null ? "#" + miss.get("seq") + " " : "") + (miss.get("endpoint") != null ? miss.get("endpoint") : "");
        return why == null ? Json.write(miss) : head.trim() + ": " + (why instanceof String s ? s : Json.write(why));
    }
}
