// A starter bot for stratego-host in plain C++17 (standard library only): it plays random
// legal moves. Copy it, rename it, and put your strategy where the comments say so.
//
// Build and run (from the repository root):
//     g++ -std=c++17 -O2 -Wall -Wextra -o /tmp/cpp-starter examples/cpp/starter_bot.cpp
//     stratego-host check /tmp/cpp-starter
//
// The protocol (protocol.md): the host writes one JSON object per line to our stdin; we
// answer each request with one JSON object on one line of stdout, flushed at once. Logs go
// to stderr. C++ has no JSON reader in its standard library, so a small one comes first.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// ---- A small JSON reader, enough for the protocol ---------------------------------------
// Numbers keep their text, so that 64-bit seeds are read exactly (see main).
struct Json {
    enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
    bool boolean = false;
    std::string text;  // a String's value, or a Number's digits
    std::vector<Json> items;
    std::vector<std::pair<std::string, Json>> fields;

    // The field `key` of an object; a Null value when absent.
    const Json& operator[](const std::string& key) const {
        static const Json none;
        for (const auto& f : fields)
            if (f.first == key) return f.second;
        return none;
    }
    long long integer() const { return std::stoll(text); }
};

class JsonParser {
public:
    explicit JsonParser(const std::string& s) : s_(s) {}

    Json parse() {
        Json v = value();
        space();
        if (i_ != s_.size()) fail("unexpected text after the value");
        return v;
    }

private:
    const std::string& s_;
    size_t i_ = 0;

    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error(what + " at character " + std::to_string(i_) + " of: " + s_);
    }
    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    void space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r' || s_[i_] == '\n')) i_++;
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        i_++;
    }

    Json value() {
        space();
        Json v;
        char c = peek();
        if (c == '{') {
            i_++;
            v.kind = Json::Object;
            space();
            if (peek() == '}') { i_++; return v; }
            while (true) {
                space();
                std::string key = string();
                space();
                expect(':');
                Json item = value();
                v.fields.emplace_back(std::move(key), std::move(item));
                space();
                if (peek() != ',') { expect('}'); return v; }
                i_++;
            }
        }
        if (c == '[') {
            i_++;
            v.kind = Json::Array;
            space();
            if (peek() == ']') { i_++; return v; }
            while (true) {
                v.items.push_back(value());
                space();
                if (peek() != ',') { expect(']'); return v; }
                i_++;
            }
        }
        if (c == '"') {
            v.kind = Json::String;
            v.text = string();
            return v;
        }
        for (const char* word : {"true", "false", "null"}) {
            if (s_.compare(i_, std::char_traits<char>::length(word), word) == 0) {
                i_ += std::char_traits<char>::length(word);
                v.kind = word[0] == 'n' ? Json::Null : Json::Bool;
                v.boolean = word[0] == 't';
                return v;
            }
        }
        size_t start = i_;
        while (i_ < s_.size() && std::string("+-0123456789.eE").find(s_[i_]) != std::string::npos) i_++;
        if (start == i_) fail("unexpected character");
        v.kind = Json::Number;
        v.text = s_.substr(start, i_ - start);
        return v;
    }

    // Appends code point cp to out as UTF-8.
    static void utf8(std::string& out, unsigned long cp) {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    unsigned long hex4() {
        if (i_ + 4 > s_.size()) fail("short \\u escape");
        std::string digits = s_.substr(i_, 4);
        char* end = nullptr;
        unsigned long cp = std::strtoul(digits.c_str(), &end, 16);
        if (end != digits.c_str() + 4) fail("bad \\u escape");
        i_ += 4;
        return cp;
    }

    std::string string() {
        expect('"');
        std::string out;
        while (true) {
            if (i_ >= s_.size()) fail("unterminated string");
            char c = s_[i_++];
            if (c == '"') return out;
            if (c != '\\') { out += c; continue; }  // UTF-8 bytes pass through
            char e = peek();
            i_++;
            switch (e) {
                case '"': case '\\': case '/': out += e; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned long cp = hex4();
                    // A character beyond U+FFFF comes as a surrogate pair: two escapes.
                    if (cp >= 0xD800 && cp < 0xDC00 && s_.compare(i_, 2, "\\u") == 0) {
                        i_ += 2;
                        unsigned long low = hex4();
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    }
                    utf8(out, cp);
                    break;
                }
                default: fail("bad escape");
            }
        }
    }
};

// A JSON string literal for s.
static std::string quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// One message, one line, flushed: unflushed answers never arrive.
static void send(const std::string& json) {
    std::cout << json << '\n' << std::flush;
}

// SplitMix64: the same seed gives the same game.
struct Rng {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    // A number in 0..n-1 (n > 0).
    size_t below(size_t n) { return size_t(((next() >> 32) * n) >> 32); }
};

// ---- WHERE TO ADD YOUR STRATEGY -----------------------------------------------------------
// choose_setup gets the setup_request, choose_move the turn (both as parsed JSON: see
// protocol.md for their fields). A turn's "pieces" shows the board as you may see it (your
// ranks, the opponent's once revealed), "plies" what happened since your last turn, "clock"
// your time. Keep your own state in globals or a struct, and reset it on "hello": one
// process plays several games.

// A random deployment of the army on the setup squares, in pairs form.
static std::string choose_setup(const Json& request, Rng& rng) {
    if (request["fixed"].kind == Json::String) return request["fixed"].text;  // the event chose it: echo it
    std::vector<std::string> army;
    for (const auto& f : request["pieces"].fields)
        for (long long n = f.second.integer(); n > 0; n--) army.push_back(f.first);
    std::vector<std::string> squares;
    for (const auto& sq : request["squares"].items) squares.push_back(sq.text);
    for (size_t i = squares.size(); i > 1; i--) std::swap(squares[i - 1], squares[rng.below(i)]);  // shuffle
    std::string pairs;
    for (size_t i = 0; i < army.size() && i < squares.size(); i++)
        pairs += (i ? " " : "") + squares[i] + "=" + army[i];
    return pairs;
}

// One of the turn's legal moves (never empty), at random.
static std::string choose_move(const Json& turn, Rng& rng) {
    const auto& legal = turn["legal_moves"].items;
    return legal[rng.below(legal.size())].text;
}
// --------------------------------------------------------------------------------------------

int main() {
    std::ios::sync_with_stdio(false);
    Rng rng{0};
    std::string line;
    while (std::getline(std::cin, line)) {  // the end of input means quit
        Json msg = JsonParser(line).parse();
        const std::string& type = msg["type"].text;
        if (type == "hello") {
            // The seed is 0 to 2^64-1: parse it unsigned (strtoull), never into a double.
            rng = Rng{std::strtoull(msg["seed"].text.c_str(), nullptr, 10)};
            // single_threaded: we compute on this one thread and only on our own turn. Say
            // false if you add threads that think while the opponent does.
            send(R"({"type":"ready","name":"cpp-starter","version":"1","multi_game":true,"single_threaded":true})");
        } else if (type == "setup_request") {
            send(R"({"type":"setup","deployment":)" + quote(choose_setup(msg, rng)) + "}");
        } else if (type == "turn") {
            send(R"({"type":"move","move":)" + quote(choose_move(msg, rng)) + R"(,"ply":)" + msg["ply"].text + "}");
        } else if (type == "game_over") {
            std::cerr << "game over: " << msg["result"].text << " (" << msg["reason"].text << ")\n";
        } else if (type == "quit") {
            return 0;
        }
        // Any other type comes from a newer host: ignore it.
    }
    return 0;
}
