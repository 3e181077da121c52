// A starter bot for stratego-host in plain Java 17 (no libraries): it plays random legal
// moves. Copy it, rename it, and put your strategy where the comments say so.
//
// Build and run (from the repository root):
//     javac -d /tmp/java-starter examples/java/StarterBot.java
//     stratego-host check "java -XX:+UseSerialGC -cp /tmp/java-starter StarterBot"
//
// The protocol (protocol.md): the host writes one JSON object per line to our stdin; we
// answer each request with one JSON object on one line of stdout, flushed at once. Logs go
// to stderr. Java has no JSON reader in its standard library, so a small one is at the end
// of this file.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class StarterBot {
    // single_threaded (protocol.md, `ready`): "I compute on one thread, only on my own turn".
    // Our code does, but the JVM has threads of its own: the garbage collector's and the JIT
    // compiler's. -XX:+UseSerialGC in the command line above collects on the thread that
    // allocates, during our turn (no concurrent GC threads); add -XX:-BackgroundCompilation
    // to compile methods inside our turn too (the first turns get slower). The host checks:
    // a bot that says true but uses CPU on its opponent's time is taken off the shared CPU
    // (noted in the game record). If you add threads that think while the opponent does,
    // say false.
    static final boolean SINGLE_THREADED = true;

    static final Writer OUT = new OutputStreamWriter(System.out, StandardCharsets.UTF_8);

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Rng rng = new Rng(0);
        String line;
        while ((line = in.readLine()) != null) { // null: the host closed our input
            Map<String, Object> msg = Json.parseObject(line);
            switch (Json.str(msg, "type")) {
                case "hello" -> {
                    // The seed is 0 to 2^64-1: Long.parseLong fails on half of them.
                    // parseUnsignedLong keeps all 64 bits (the long may print negative).
                    rng = new Rng(Long.parseUnsignedLong(Json.num(msg, "seed")));
                    send("{\"type\":\"ready\",\"name\":\"java-starter\",\"version\":\"1\","
                            + "\"multi_game\":true,\"single_threaded\":" + SINGLE_THREADED + "}");
                }
                case "setup_request" -> send("{\"type\":\"setup\",\"deployment\":"
                        + Json.quote(chooseSetup(msg, rng)) + "}");
                case "turn" -> send("{\"type\":\"move\",\"move\":" + Json.quote(chooseMove(msg, rng))
                        + ",\"ply\":" + Json.num(msg, "ply") + "}");
                case "game_over" -> System.err.println("game over: " + Json.str(msg, "result")
                        + " (" + Json.str(msg, "reason") + ")");
                case "quit" -> {
                    return;
                }
                default -> { } // a message type from a newer host: ignore it
            }
        }
    }

    // ---- WHERE TO ADD YOUR STRATEGY ------------------------------------------------------
    // chooseSetup gets the setup_request, chooseMove the turn (both as parsed JSON: see
    // protocol.md for their fields). A turn's "pieces" shows the board as you may see it
    // (your ranks, the opponent's once revealed), "plies" what happened since your last
    // turn, "clock" your time. Keep your own state in fields, and reset it on "hello":
    // one process plays several games.

    /** A random deployment of the army on the setup squares, in pairs form. */
    static String chooseSetup(Map<String, Object> request, Rng rng) {
        Object fixed = request.get("fixed");
        if (fixed instanceof String f) {
            return f; // the event chose our setup; echoing it is simplest
        }
        List<String> army = new ArrayList<>();
        for (Map.Entry<String, Object> e : Json.obj(request, "pieces").entrySet()) {
            int n = Integer.parseInt(((Json.Num) e.getValue()).text());
            for (int i = 0; i < n; i++) {
                army.add(e.getKey());
            }
        }
        List<Object> squares = new ArrayList<>(Json.arr(request, "squares"));
        for (int i = squares.size() - 1; i > 0; i--) { // Fisher-Yates shuffle
            int j = rng.below(i + 1);
            Object t = squares.get(i);
            squares.set(i, squares.get(j));
            squares.set(j, t);
        }
        StringBuilder pairs = new StringBuilder();
        for (int i = 0; i < army.size() && i < squares.size(); i++) {
            pairs.append(i == 0 ? "" : " ").append(squares.get(i)).append('=').append(army.get(i));
        }
        return pairs.toString();
    }

    /** One of the turn's legal moves (never empty), at random. */
    static String chooseMove(Map<String, Object> turn, Rng rng) {
        List<Object> legal = Json.arr(turn, "legal_moves");
        return (String) legal.get(rng.below(legal.size()));
    }
    // ---------------------------------------------------------------------------------------

    /** Writes one message as one line, and flushes: unflushed answers never arrive. */
    static void send(String json) throws IOException {
        OUT.write(json);
        OUT.write('\n');
        OUT.flush();
    }

    /** SplitMix64: the same seed gives the same game. */
    static final class Rng {
        private long state;

        Rng(long seed) {
            state = seed;
        }

        long next() {
            state += 0x9E3779B97F4A7C15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        /** A number in 0..n-1 (n > 0). */
        int below(int n) {
            return (int) (((next() >>> 32) * n) >>> 32);
        }
    }

    /**
     * A small JSON reader, enough for the protocol: objects become LinkedHashMaps, arrays
     * Lists, strings Strings, true/false Booleans, null null, and numbers Num (their text,
     * so that 64-bit seeds are read exactly).
     */
    static final class Json {
        record Num(String text) { }

        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        static Map<String, Object> parseObject(String text) {
            Json p = new Json(text);
            p.space();
            if (p.peek() != '{') {
                throw p.error("expected an object");
            }
            Object v = p.value();
            p.space();
            if (p.i != p.s.length()) {
                throw p.error("unexpected text after the object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) v;
            return m;
        }

        static String str(Map<String, Object> m, String key) {
            return (String) m.get(key);
        }

        static String num(Map<String, Object> m, String key) {
            return ((Num) m.get(key)).text();
        }

        @SuppressWarnings("unchecked")
        static List<Object> arr(Map<String, Object> m, String key) {
            return (List<Object>) m.get(key);
        }

        @SuppressWarnings("unchecked")
        static Map<String, Object> obj(Map<String, Object> m, String key) {
            return (Map<String, Object>) m.get(key);
        }

        /** A JSON string literal for s. */
        static String quote(String s) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : s.toCharArray()) {
                if (c == '"' || c == '\\') {
                    b.append('\\').append(c);
                } else if (c < 0x20) {
                    b.append(String.format("\\u%04x", (int) c));
                } else {
                    b.append(c);
                }
            }
            return b.append('"').toString();
        }

        private char peek() {
            return i < s.length() ? s.charAt(i) : '\0';
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException(what + " at character " + i + " of: " + s);
        }

        private void space() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
        }

        private void expect(char c) {
            if (peek() != c) {
                throw error("expected '" + c + "'");
            }
            i++;
        }

        private Object value() {
            space();
            char c = peek();
            if (c == '{') {
                i++;
                Map<String, Object> m = new LinkedHashMap<>();
                space();
                if (peek() == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    space();
                    String key = string();
                    space();
                    expect(':');
                    m.put(key, value());
                    space();
                    if (peek() != ',') {
                        expect('}');
                        return m;
                    }
                    i++;
                }
            }
            if (c == '[') {
                i++;
                List<Object> a = new ArrayList<>();
                space();
                if (peek() == ']') {
                    i++;
                    return a;
                }
                while (true) {
                    a.add(value());
                    space();
                    if (peek() != ',') {
                        expect(']');
                        return a;
                    }
                    i++;
                }
            }
            if (c == '"') {
                return string();
            }
            for (String word : new String[] {"true", "false", "null"}) {
                if (s.startsWith(word, i)) {
                    i += word.length();
                    return word.equals("null") ? null : Boolean.valueOf(word);
                }
            }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            if (start == i) {
                throw error("unexpected character");
            }
            return new Num(s.substring(start, i));
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                if (i >= s.length()) {
                    throw error("unterminated string");
                }
                char c = s.charAt(i++);
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = peek();
                i++;
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> {
                        // \\uXXXX is one UTF-16 unit; a surrogate pair comes as two of them.
                        if (i + 4 > s.length()) {
                            throw error("short \\u escape");
                        }
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> throw error("bad escape");
                }
            }
        }
    }
}
