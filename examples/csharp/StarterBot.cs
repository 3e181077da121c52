// A starter bot for stratego-host in C# (the standard library only): it plays random legal
// moves. Copy it, rename it, and put your strategy where the comments say so.
//
// Build and run with Mono (Debian: apt-get install mono-mcs
// libmono-system-runtime-serialization4.0-cil), from the repository root:
//     mcs -r:System.Runtime.Serialization -out:/tmp/csharp-starter.exe examples/csharp/StarterBot.cs
//     stratego-host check "env MONO_GC_PARAMS=major=marksweep mono /tmp/csharp-starter.exe"
// It reads JSON with DataContractJsonSerializer, which .NET has too (only Mono is tested
// here; with .NET, System.Text.Json is the usual choice).
//
// The protocol (protocol.md): the host writes one JSON object per line to our stdin; we
// answer each request with one JSON object on one line of stdout, flushed at once. Logs go
// to stderr.

using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.Serialization;
using System.Runtime.Serialization.Json;
using System.Text;

// The host's messages, as far as this bot reads them: the serializer skips the other
// fields. Add the ones your strategy needs (protocol.md lists them all).
[DataContract]
class Head
{
    [DataMember(Name = "type")] public string Type;
}

[DataContract]
class Hello
{
    // The seed is 0 to 2^64-1: a ulong (or ulong.Parse of the number's text). A long
    // overflows on half of all seeds, a double rounds them above 2^53.
    [DataMember(Name = "seed")] public ulong Seed;
}

[DataContract]
class SetupRequest
{
    [DataMember(Name = "squares")] public List<string> Squares;
    [DataMember(Name = "pieces")] public Dictionary<string, int> Pieces;
    [DataMember(Name = "fixed")] public string Fixed; // set when the event chose our setup
}

[DataContract]
class Piece
{
    [DataMember(Name = "square")] public string Square;
    [DataMember(Name = "color")] public string Color;
    [DataMember(Name = "rank")] public string Rank; // null for an opponent's piece not yet revealed
    [DataMember(Name = "moved")] public bool Moved;
}

[DataContract]
class Turn
{
    [DataMember(Name = "ply")] public int Ply;
    [DataMember(Name = "legal_moves")] public List<string> LegalMoves;
    [DataMember(Name = "pieces")] public List<Piece> Pieces;
}

[DataContract]
class GameOver
{
    [DataMember(Name = "result")] public string Result;
    [DataMember(Name = "reason")] public string Reason;
}

/// SplitMix64: the same seed gives the same game.
class Rng
{
    ulong state;

    public Rng(ulong seed) { state = seed; }

    public ulong Next()
    {
        unchecked
        {
            state += 0x9E3779B97F4A7C15UL;
            ulong z = state;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
            return z ^ (z >> 31);
        }
    }

    /// A number in 0..n-1 (n > 0).
    public int Below(int n) { return (int)(((Next() >> 32) * (ulong)n) >> 32); }
}

static class StarterBot
{
    // single_threaded (protocol.md, `ready`): "I compute on one thread, only on my own turn".
    // Our code does; the runtime has threads of its own (Mono: the finalizer, and the
    // collector's concurrent marking, which MONO_GC_PARAMS=major=marksweep in the command
    // line above turns off; Mono compiles methods on the thread that calls them). If you add
    // threads that think while the opponent does, say false.
    const bool SingleThreaded = true;

    static readonly Stream Out = Console.OpenStandardOutput();

    /// Reads one line as a T.
    static T Read<T>(string line)
    {
        using (var bytes = new MemoryStream(Encoding.UTF8.GetBytes(line)))
            return (T)Reader<T>.Serializer.ReadObject(bytes);
    }

    /// One serializer per message class, made once.
    static class Reader<T>
    {
        public static readonly DataContractJsonSerializer Serializer = new DataContractJsonSerializer(
            typeof(T), new DataContractJsonSerializerSettings { UseSimpleDictionaryFormat = true });
    }

    /// Writes one message as one line, flushed: unflushed answers never arrive.
    static void Send(string json)
    {
        byte[] line = Encoding.UTF8.GetBytes(json + "\n");
        Out.Write(line, 0, line.Length);
        Out.Flush();
    }

    /// A JSON string literal for s.
    static string Quote(string s)
    {
        var b = new StringBuilder("\"");
        foreach (char c in s)
        {
            if (c == '"' || c == '\\') b.Append('\\').Append(c);
            else if (c < 0x20) b.AppendFormat("\\u{0:x4}", (int)c);
            else b.Append(c);
        }
        return b.Append('"').ToString();
    }

    // ---- WHERE TO ADD YOUR STRATEGY -----------------------------------------------------
    // ChooseSetup gets the setup_request, ChooseMove the turn. A turn's "pieces" shows the
    // board as you may see it (your ranks, the opponent's once revealed), "plies" what
    // happened since your last turn, "clock" your time: add the fields you need to the
    // classes above. Keep your own state in static fields, and reset it on "hello": one
    // process plays several games.

    /// A random deployment of the army on the setup squares, in pairs form.
    static string ChooseSetup(SetupRequest request, Rng rng)
    {
        if (request.Fixed != null) return request.Fixed; // the event chose it: echo it
        var army = new List<string>();
        foreach (var kind in request.Pieces)
            for (int i = 0; i < kind.Value; i++) army.Add(kind.Key);
        var squares = new List<string>(request.Squares);
        for (int i = squares.Count - 1; i > 0; i--) // Fisher-Yates shuffle
        {
            int j = rng.Below(i + 1);
            string t = squares[i];
            squares[i] = squares[j];
            squares[j] = t;
        }
        var pairs = new List<string>();
        for (int i = 0; i < army.Count && i < squares.Count; i++) pairs.Add(squares[i] + "=" + army[i]);
        return string.Join(" ", pairs);
    }

    /// One of the turn's legal moves (never empty), at random.
    static string ChooseMove(Turn turn, Rng rng)
    {
        return turn.LegalMoves[rng.Below(turn.LegalMoves.Count)];
    }
    // ---------------------------------------------------------------------------------------

    static void Main()
    {
        var input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
        var rng = new Rng(0);
        string line;
        while ((line = input.ReadLine()) != null) // null: the end of input means quit
        {
            switch (Read<Head>(line).Type)
            {
                case "hello":
                    rng = new Rng(Read<Hello>(line).Seed);
                    Send("{\"type\":\"ready\",\"name\":\"csharp-starter\",\"version\":\"1\",\"multi_game\":true,"
                        + "\"single_threaded\":" + (SingleThreaded ? "true" : "false") + "}");
                    break;
                case "setup_request":
                    Send("{\"type\":\"setup\",\"deployment\":" + Quote(ChooseSetup(Read<SetupRequest>(line), rng)) + "}");
                    break;
                case "turn":
                    var turn = Read<Turn>(line);
                    Send("{\"type\":\"move\",\"move\":" + Quote(ChooseMove(turn, rng)) + ",\"ply\":" + turn.Ply + "}");
                    break;
                case "game_over":
                    var over = Read<GameOver>(line);
                    Console.Error.WriteLine("game over: " + over.Result + " (" + over.Reason + ")");
                    break;
                case "quit":
                    return;
                default:
                    break; // a message type from a newer host: ignore it
            }
        }
    }
}
