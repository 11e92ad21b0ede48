package io.github.rewardsim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The conformance report ({@code GET /__sim/report}, schemas/report.json): what the simulator's
 * rules found in the journal of a channel, or of every channel. {@link #failOn(Severity)} fails a
 * test on the findings of a severity or worse, as {@code rewardsim report --fail-on} exits 1 on
 * them:
 *
 * <pre>{@code
 * ch.report().failOn(Report.Severity.ERROR);
 * }</pre>
 *
 * @param channel the channel reported on, or null for every channel
 * @param exchanges how many exchanges the rules read
 * @param findings the rules that fired, each with one example exchange
 * @param totals findings per severity
 * @param checked every rule the report checked
 * @param journalDropped exchanges the journal dropped under overload (the report may miss findings)
 * @param notCheckable what no rule can see from the journal: no finding says nothing about these
 */
public record Report(String channel, long exchanges, List<Finding> findings, Map<Severity, Integer> totals, List<Rule> checked,
        long journalDropped, List<NotCheckable> notCheckable) {

    /** A finding's severity, least first. */
    public enum Severity {
        /** For information. */
        INFO,
        /** Probably a mistake. */
        WARNING,
        /** Against the contract. */
        ERROR;

        /**
         * The severity of its JSON name.
         *
         * @param name "error", "warning" or "info"
         * @return the severity
         * @throws IllegalArgumentException for any other name, listing those
         */
        public static Severity of(String name) {
            for (Severity s : values()) {
                if (s.json().equals(name)) return s;
            }
            throw new IllegalArgumentException("severity " + Json.write(name) + ": want \"error\", \"warning\" or \"info\"");
        }

        /** @return the name the report's JSON uses: "error", "warning" or "info" */
        public String json() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A rule the report checks.
     *
     * @param id the rule, such as {@code retry-with-new-ext-transaction-id}
     * @param clause the contract clause, such as {@code CPN-4}
     * @param severity how bad a finding of it is
     * @param title what it finds
     * @param advice what to do about it
     * @param reading set when the rule checks the simulator's own reading of a point the contract leaves open; else null
     */
    public record Rule(String id, String clause, Severity severity, String title, String advice, String reading) {}

    /**
     * The one exchange a finding shows.
     *
     * @param seq its journal sequence
     * @param at when, in simulated time (RFC 3339)
     * @param method the HTTP method
     * @param path the path called
     * @param endpoint the operation, or null
     * @param status the HTTP status answered (0: dropped, or no answer)
     * @param reason the answer's X-Rewardsim-Reason, or null
     * @param detail what was wrong
     */
    public record Example(long seq, String at, String method, String path, String endpoint, int status, String reason, String detail) {}

    /**
     * A rule that fired.
     *
     * @param rule the rule
     * @param count how many times
     * @param example one exchange that shows it
     */
    public record Finding(Rule rule, int count, Example example) {
        /** @return the rule's id */
        public String id() { return rule.id(); }

        /** @return the rule's contract clause */
        public String clause() { return rule.clause(); }

        /** @return the rule's severity */
        public Severity severity() { return rule.severity(); }

        /** @return the finding as {@code rewardsim report} prints it: rule, count, example and advice */
        @Override
        public String toString() {
            Example e = example;
            return rule.severity().json() + " " + rule.clause() + " " + rule.id() + " x" + count + ": " + rule.title()
                    + "\n  e.g. #" + e.seq() + " " + e.method() + " " + e.path() + ": " + e.detail()
                    + "\n  advice: " + rule.advice()
                    + (rule.reading() != null ? "\n  the simulator's reading: " + rule.reading() : "");
        }
    }

    /**
     * What no rule can see from the journal.
     *
     * @param id its id
     * @param title what it is
     * @param how how to test it
     */
    public record NotCheckable(String id, String title, String how) {}

    /**
     * The findings of severity at least min.
     *
     * @param min the least severity kept
     * @return those findings, in the report's order
     */
    public List<Finding> findings(Severity min) {
        return findings.stream().filter(f -> f.severity().compareTo(min) >= 0).toList();
    }

    /**
     * Fails on the findings of severity min or worse.
     *
     * @param min the least severity that fails
     * @return this report, when it has none
     * @throws AssertionError listing them, when it has some
     */
    public Report failOn(Severity min) {
        List<Finding> failing = findings(min);
        if (!failing.isEmpty()) {
            throw new AssertionError("conformance report" + (channel != null ? " of channel " + channel : "") + ": " + failing.size()
                    + " finding(s) of severity " + min.json() + " or worse\n"
                    + failing.stream().map(f -> "  " + f.toString().replace("\n", "\n  ")).collect(Collectors.joining("\n")));
        }
        return this;
    }

    // The report as the control API answers it.
    static Report of(Map<?, ?> m) {
        List<Finding> findings = new ArrayList<>();
        for (Map<?, ?> f : maps(m.get("findings"))) {
            Map<?, ?> e = f.get("example") instanceof Map<?, ?> x ? x : Map.of();
            findings.add(new Finding(rule(f), (int) num(f.get("count")), new Example(num(e.get("seq")), str(e.get("at")), str(e.get("method")),
                    str(e.get("path")), str(e.get("endpoint")), (int) num(e.get("status")), str(e.get("reason")), str(e.get("detail")))));
        }
        Map<Severity, Integer> totals = new LinkedHashMap<>();
        if (m.get("totals") instanceof Map<?, ?> t) t.forEach((k, v) -> totals.put(Severity.of(String.valueOf(k)), (int) num(v)));
        List<Rule> checked = maps(m.get("checked")).stream().map(Report::rule).toList();
        List<NotCheckable> notCheckable = maps(m.get("notCheckable")).stream()
                .map(n -> new NotCheckable(str(n.get("id")), str(n.get("title")), str(n.get("how")))).toList();
        return new Report(str(m.get("channel")), num(m.get("exchanges")), List.copyOf(findings), Collections.unmodifiableMap(totals), checked,
                num(m.get("journalDropped")), notCheckable);
    }

    private static Rule rule(Map<?, ?> r) {
        return new Rule(str(r.get("id")), str(r.get("clause")), Severity.of(str(r.get("severity"))), str(r.get("title")),
                str(r.get("advice")), str(r.get("reading")));
    }

    private static List<Map<?, ?>> maps(Object v) {
        List<Map<?, ?>> out = new ArrayList<>();
        if (v instanceof List<?> l) {
            for (Object o : l) {
                if (o instanceof Map<?, ?> m) out.add(m);
            }
        }
        return out;
    }

    private static String str(Object v) {
        return v instanceof String s ? s : null;
    }

    private static long num(Object v) {
        return v instanceof Number n ? n.longValue() : 0;
    }
}
