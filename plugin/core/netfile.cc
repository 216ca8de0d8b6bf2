#include "plugin/core/netfile.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <istream>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plugin/core/error.h"
#include "plugin/core/input_files.h"
#include "plugin/core/int_math.h"

namespace ibu {

namespace {

enum class NodeType { kSwitch, kCa };

struct RawPort {
  int num = 0;
  std::string remote;
  int remote_port = 1;
  Guid port_guid = 0;  // explicit "(guid)" after the local port, CAs only
  std::optional<Guid> peer_guid;  // "(guid)" after the reference: the peer port's
  Lid lid = 0;         // from an ibnetdiscover "# lid N lmc M" comment
  int lmc = -1;
  int line = 0;
};

struct RawNode {
  NodeType type = NodeType::kSwitch;
  std::string id;
  std::string desc;
  int num_ports = 0;
  Guid guid = 0;
  Guid port_guid = 0;  // a switch's port 0 GUID when not `guid` (see Switch)
  Lid lid = 0;  // switch base LID from "base port 0 lid N lmc M"
  int lmc = 0;
  int line = 0;
  std::vector<RawPort> ports;
};

// Mirrors ibsim's GUID numbering so files without explicit GUIDs get the
// GUIDs ibsim will give them: one counter per node type (switches, CAs,
// routers), each set by its own "xxguid=" line.
struct GuidCounter {
  Guid absolute;
  Guid next;
};

class Parser {
 public:
  Parser(std::istream& is, std::string file) : is_(is), file_(std::move(file)) {}

  std::vector<RawNode> Run() {
    std::string line;
    while (std::getline(is_, line)) {
      ++line_no_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      ParseLine(line);
    }
    return std::move(nodes_);
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw InputError(file_, line_no_, what);
  }

  static std::string Trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
  }

  static bool StartsWith(const std::string& s, const char* p) {
    return s.rfind(p, 0) == 0;
  }

  // Keywords are whole words, so "Cable 1" is no "Ca" header and "caguidx=1"
  // no "caguid" line. A node type is followed by blanks:
  static bool IsWord(const std::string& s, const char* word) {
    const size_t n = std::strlen(word);
    return StartsWith(s, word) && n < s.size() && std::isspace(static_cast<unsigned char>(s[n]));
  }

  // and a setting's key by one of `ops` ('=', or '+' for ibsim's relative
  // GUIDs), blanks allowed between.
  static bool IsKey(const std::string& s, const char* key, const char* ops) {
    if (!StartsWith(s, key)) return false;
    const size_t p = SkipBlanks(s, std::strlen(key));
    return p < s.size() && s[p] != '\0' && std::strchr(ops, s[p]) != nullptr;  // strchr finds NUL too
  }

  // The whole of `text` (blanks around it aside) as a hexadecimal GUID, with
  // or without 0x, as in ibnetdiscover's "(2c90300001231)": no sign, no
  // trailing text ("(12zz)" is not 0x12).
  Guid ParseHex(const std::string& text) const {
    std::string t = Trim(text);
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(t.c_str(), &end, 16);
    if (t.empty() || !std::isxdigit(static_cast<unsigned char>(t[0])) || *end != '\0' || errno)
      Fail("bad hexadecimal number '" + t + "': expected a GUID in hex digits, like 0x0002c90300001234");
    return v;
  }

  static size_t SkipBlanks(const std::string& s, size_t pos) {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
    return pos;
  }

  // What may follow the last field of a line: blanks, then a '#' comment or
  // nothing. Anything else is refused, naming the field it follows.
  void ExpectLineEnd(const std::string& line, size_t pos, const std::string& after) const {
    pos = SkipBlanks(line, pos);
    if (pos < line.size() && line[pos] != '#')
      Fail("unexpected '" + Excerpt(line.substr(pos)) + "' after " + after +
           ": expected a '#' comment or the end of the line");
  }

  // The section headings `ibnetdiscover -g` (grouping by chassis) writes
  // between records: "Chassis N", "Chassis N (guid 0x...)", "Non-Chassis
  // Nodes" and, for Xsigo chassis, "Hostname: NAME". ibsim drops them too.
  static bool IsGroupingHeading(const std::string& line) {
    if (line == "Non-Chassis Nodes" || StartsWith(line, "Hostname: ")) return true;
    if (!IsWord(line, "Chassis")) return false;
    const size_t p = SkipBlanks(line, std::strlen("Chassis"));
    return p < line.size() && std::isdigit(static_cast<unsigned char>(line[p]));
  }

  // "[N]" at s[pos], N in decimal digits only ("[+1]" and "[ 1]" are not
  // ports); moves pos past ']'. -1 when there is no such bracket.
  static long BracketedNumber(const std::string& s, size_t& pos) {
    if (pos >= s.size() || s[pos] != '[') return -1;
    size_t p = pos + 1;
    long v = 0;
    for (; p < s.size() && std::isdigit(static_cast<unsigned char>(s[p])); ++p)
      v = std::min(v * 10 + (s[p] - '0'), 1000000L);
    if (p == pos + 1 || p >= s.size() || s[p] != ']') return -1;
    pos = p + 1;
    return v;
  }

  // "(GUID)" at s[pos], as ibnetdiscover writes port GUIDs; moves pos past ')'.
  Guid ParenthesizedGuid(const std::string& s, size_t& pos) const {
    size_t close = s.find(')', pos);
    if (close == std::string::npos) Fail("unterminated '(' port GUID");
    Guid g = ParseHex(s.substr(pos + 1, close - pos - 1));
    pos = close + 1;
    return g;
  }

  // ibsim reads every line from its first column, and a node's record ends
  // after its last port or at the first line that is neither a port line
  // nor a '#' comment, a line ibsim then drops: an indented line, or a GUID
  // line right under a record, would mean something else to ibsim.
  void ParseLine(const std::string& raw) {
    const std::string line = Trim(raw);
    if (line.empty() || (line[0] == '#' && raw[0] != '#')) {  // blank, or an indented comment
      record_open_ = false;
      return;
    }
    if (raw[0] == '#') return;
    if (raw[0] != line[0] || std::isspace(static_cast<unsigned char>(line[0])))
      Fail("'" + Excerpt(line) +
           "' is indented: ibsim reads node headers, port lines and settings from the first column and "
           "ignores this line (or ends a record there): expected it at the first column");
    if (line[0] == '[' || line[0] == '@') return ParsePort(line);
    if (record_open_)
      Fail("ibsim ends the record of \"" + nodes_.back().id +
           "\" at this line and drops the line (a record ends after its last port or at the first other "
           "line): expected a blank line before '" +
           Excerpt(line) + "'");
    if (IsKey(line, "switchguid", "=+")) return SetGuid(line, &switch_guid_);
    if (IsKey(line, "caguid", "=+") || IsKey(line, "hcaguids", "=+")) return SetGuid(line, &ca_guid_);
    if (IsKey(line, "rtguid", "=+")) return SetGuid(line, &router_guid_);
    if (IsKey(line, "vendid", "=") || IsKey(line, "devid", "=") || IsKey(line, "sysimgguid", "=")) return;
    if (IsWord(line, "do")) return ConsoleCommand(line);
    if (LinkOrDebugSetting(line)) return;
    if (IsKey(line, "include", "\""))
      Fail(
          "ibsim's 'include' reads another net file (by a path relative to ibsim's working directory, not to "
          "this file) and is not supported: expected the included file's records written out here");
    if (IsKey(line, "module", "="))
      Fail(
          "ibsim's 'module=' renames the nodes after it (\"M#name\") and the references to them, for "
          "copies of an included file, and is not supported: expected every node under its own full name");
    if (IsWord(line, "Switch")) return ParseHeader(line, NodeType::kSwitch, 6, &switch_guid_);
    if (IsWord(line, "Hca")) return ParseHeader(line, NodeType::kCa, 3, &ca_guid_);
    if (IsWord(line, "Ca")) return ParseHeader(line, NodeType::kCa, 2, &ca_guid_);
    // A router's ports are end ports to the model, as OpenSM routes to them
    // (the plugin imports every non-switch port so), but its GUIDs are
    // counted apart, as ibsim counts them.
    if (IsWord(line, "Rt")) return ParseHeader(line, NodeType::kCa, 2, &router_guid_);
    if (IsGroupingHeading(line)) return;
    Fail(
        "expected a node header (Switch/Hca/Ca/Rt N \"name\"), a port line "
        "([N] \"peer\"[M]) or a guid assignment, got '" +
        Excerpt(line) + "'");
  }

  // ibsim runs a "do CMD" line as a console command while it parses. Those
  // that report or wait change nothing and are ignored; those that change
  // cabling, GUIDs or LIDs (or run a command file, "!FILE") are refused,
  // as the records would no longer say what the fabric is.
  void ConsoleCommand(const std::string& line) const {
    std::istringstream words(line.substr(2));
    std::string cmd;
    words >> cmd;
    std::string lower(cmd);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    static const char* const kChanging[] = {"link", "unlink", "clear", "relink", "guid", "baselid"};
    const bool changing =
        (!lower.empty() && lower[0] == '!') ||
        std::any_of(std::begin(kChanging), std::end(kChanging), [&](const char* c) { return lower == c; });
    if (changing)
      Fail("ibsim's console command 'do " + cmd +
           "' changes cabling, GUIDs or LIDs while the file is read and is not supported: expected the "
           "records to say what the fabric is (give such commands to the running ibsim)");
  }

  // ibsim's defaults for the links of the nodes after them ('width=',
  // 'speed=', 'extspeed=', as the port options w= s= e= set one link's) and
  // its parser's debug level ('pdebug='). No GUID or cable depends on them,
  // and the timing model gives every link the same rate (byte_ns), so they
  // are checked against the range ibsim accepts and otherwise ignored.
  bool LinkOrDebugSetting(const std::string& line) const {
    struct Setting {
      const char* key;
      long long lo, hi;
    };
    static const Setting kSettings[] = {
        {"width", 1, 31}, {"speed", 1, 7}, {"extspeed", 0, 15}, {"pdebug", INT_MIN, INT_MAX}};
    for (const Setting& s : kSettings) {
      if (!IsKey(line, s.key, "=")) continue;
      const std::string value = Trim(line.substr(line.find('=') + 1));
      long long v = 0;
      if (!ParseInteger(value, &v) || v < s.lo || v > s.hi)
        Fail("expected an integer from " + std::to_string(s.lo) + " to " + std::to_string(s.hi) + " after '" +
             s.key + "=', got '" + value + "'");
      return true;
    }
    return false;
  }

  // The GUID of a "switchguid=" line or its kin as ibsim reads it (strtoull
  // base 0), so that both give a file the same GUIDs: 0x hex (what
  // ibnetdiscover and the generator write) or decimal. ibsim reads a
  // leading 0 as octal and stops at the first letter of hex written
  // without 0x; both are refused rather than read another way.
  Guid IbsimGuid(const std::string& text) const {
    const std::string t = Trim(text);
    unsigned long long g = 0;
    if (ParseHexGuid(t, &g)) return g;
    const bool decimal = IsDecimalDigits(t);
    if (decimal && t.size() > 1 && t[0] == '0')
      Fail("'" + t +
           "' is octal to ibsim (a leading 0): expected the GUID in 0x hex, like 0x0002c90300001234, "
           "or in decimal without a leading 0");
    errno = 0;
    if (decimal) g = std::strtoull(t.c_str(), nullptr, 10);
    if (!decimal || errno == ERANGE)
      Fail("expected a GUID in 0x hex, like 0x0002c90300001234, or in decimal, as ibsim reads it, got '" + t +
           "'");
    return g;
  }

  // A line IsKey found with '=' or '+'.
  void SetGuid(const std::string& line, GuidCounter* c) {
    size_t eq = line.find_first_of("=+");
    // ibnetdiscover: "switchguid=0xNODEGUID(PORTGUID)".
    size_t stop = line.find_first_of("(#", eq + 1);
    Guid g = IbsimGuid(line.substr(eq + 1, stop == std::string::npos ? stop : stop - eq - 1));
    std::optional<Guid> port;
    if (stop != std::string::npos && line[stop] == '(') {
      port = ParenthesizedGuid(line, stop);
      ExpectLineEnd(line, stop, "the port GUID");
    }
    if (line[eq] == '+') {
      c->next = c->absolute + g;
    } else {
      c->absolute = g;
      c->next = g;
    }
    // ibnetdiscover writes the next switch's port 0 GUID after its node GUID;
    // ibsim ignores it (its switches' port 0 has the node GUID), real
    // hardware may have another, by which the real SM's guid2lid lists it.
    if (c == &switch_guid_) switch_port_guid_ = port && *port != c->next ? *port : 0;
  }

  // Reads a quoted string starting at s[pos] == '"'; returns it and moves pos.
  std::string Quoted(const std::string& s, size_t& pos) const {
    if (pos >= s.size() || s[pos] != '"') {
      // What stands there instead, e.g. ibnetdiscover -g's "[ext 3]".
      const std::string got =
          pos >= s.size() ? "the end of the line" : "'" + Excerpt(s.substr(pos, 40)) + "'";
      Fail("expected a quoted node name, got " + got);
    }
    size_t end = s.find('"', pos + 1);
    if (end == std::string::npos) Fail("unterminated quoted name");
    std::string out = s.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    return out;
  }

  // The integer after the word `key` in an ibnetdiscover comment, by the
  // core's rule (decimal or 0x hex), or -1 without the word. Whole words
  // only, so "valid" is no "lid"; a value that is not an integer in 0..max
  // is refused rather than read as 0 or truncated (an LMC of 255 once
  // reached a shift), and so is a leading 0, which ibsim reads as octal
  // ("lid 010" is its LID 8).
  long long CommentValue(const std::string& comment, const std::string& key, long long max,
                         const char* expected) const {
    std::istringstream words(comment);
    for (std::string w; words >> w;) {
      if (w != key) continue;
      std::string text;
      long long v = -1;
      if (!(words >> text) || !ParseInteger(text, &v) || v < 0 || v > max)
        Fail("expected " + std::string(expected) + " after '" + key + "' in the comment, got '" + text + "'");
      if (text.size() > 1 && text[0] == '0' && IsDecimalDigits(text.substr(1)))
        Fail("expected " + std::string(expected) + " after '" + key + "' in the comment, got '" + text +
             "': a leading 0 is octal to ibsim");
      return v;
    }
    return -1;
  }

  // "lid N lmc M" inside an ibnetdiscover comment ("lid 0": none yet). The
  // LIDs must fit below 0xC000 and be LMC-aligned, a switch's port 0 as an
  // end port (without 'lmc' any LID is).
  void FindLidLmc(const std::string& comment, Lid* lid, int* lmc) {
    const long long v = CommentValue(comment, "lid", kMaxUnicastLid, "a LID 0..0xBFFF (decimal or 0x hex)");
    if (v < 0) return;
    const long long m = CommentValue(comment, "lmc", 7, "an LMC 0..7");
    if (v == 0) return;
    const long long count = 1LL << std::max(m, 0LL);
    if (v + count - 1 > kMaxUnicastLid)
      Fail("lid " + std::to_string(v) + " lmc " + std::to_string(m) + ": its " + std::to_string(count) +
           " LIDs end beyond the unicast range (0xBFFF)");
    if (v % count != 0)
      Fail("lid " + std::to_string(v) + " is not aligned to lmc " + std::to_string(m) +
           ": expected a multiple of " + std::to_string(count));
    *lid = static_cast<Lid>(v);
    if (m >= 0) *lmc = static_cast<int>(m);
  }

  // The port count at line[pos], up to a blank or the quoted name, as
  // ibnetdiscover prints it: decimal digits, 1 to 254 (kMaxSwitchPorts: an
  // LFT entry of 255 means no route, so a port 255 was routed to as a black
  // hole). No sign (strtol took "+8") and no leading 0 (ibsim reads "010"
  // as octal 8). Moves pos past it.
  int PortCount(const std::string& line, size_t& pos) const {
    const size_t end = std::min(line.find_first_of(" \t\"", pos), line.size());
    const std::string text = line.substr(pos, end - pos);
    const bool digits = IsDecimalDigits(text) && text.size() <= 3 && text[0] != '0';
    long long ports = 0;
    if (!digits || !ParseInteger(text, &ports) || ports > kMaxSwitchPorts)
      Fail("expected a port count from 1 to " + std::to_string(kMaxSwitchPorts) +
           " (decimal digits, no sign or leading 0) after the node type, got '" + text + "'");
    pos = end;
    return static_cast<int>(ports);
  }

  // `guids` numbers the node: its type's counter (see GuidCounter).
  void ParseHeader(const std::string& line, NodeType type, size_t keyword_len, GuidCounter* guids) {
    RawNode n;
    n.type = type;
    n.line = line_no_;
    size_t pos = SkipBlanks(line, keyword_len);
    n.num_ports = PortCount(line, pos);
    pos = SkipBlanks(line, pos);
    n.id = Quoted(line, pos);
    if (n.id.empty()) Fail("empty node name");
    ExpectLineEnd(line, pos, "the node name \"" + n.id + "\"");
    n.desc = n.id;
    size_t hash = line.find('#', pos);
    if (hash != std::string::npos) {
      std::string comment = line.substr(hash + 1);
      size_t q = comment.find('"');
      if (q != std::string::npos) {
        // ibnetdiscover quotes the description as it is, quotes inside it
        // too ("node \"x\" HCA-1"): it ends at the last quote, after which
        // only "base port 0 lid N lmc M" follows.
        size_t qe = comment.rfind('"');
        if (qe == q) qe = std::string::npos;
        if (qe != std::string::npos) n.desc = comment.substr(q + 1, qe - q - 1);
        comment = comment.substr(qe == std::string::npos ? q : qe + 1);
      }
      if (type == NodeType::kSwitch) FindLidLmc(comment, &n.lid, &n.lmc);
    }
    n.guid = guids->next;
    if (type == NodeType::kSwitch) n.port_guid = std::exchange(switch_port_guid_, 0);
    // GUID 0 is reserved; ibsim would hand it out (to the first router
    // without an 'rtguid=' line, or after 'caguid=0').
    if (n.guid == 0)
      Fail("\"" + n.id + "\" would get node GUID 0, which InfiniBand reserves (ibsim numbers routers from 0 "
           "unless an 'rtguid=' line says otherwise): expected a 'switchguid=', 'caguid=' or 'rtguid=' line "
           "with a GUID above 0 before it");
    guids->next += type == NodeType::kSwitch ? 1 : n.num_ports + 1;
    if (!names_.emplace(n.id, nodes_.size()).second)
      Fail("node name \"" + n.id + "\" appears twice");
    nodes_.push_back(std::move(n));
    record_open_ = true;
  }

  // What may follow a port reference "peer"[M] before the comment: the
  // peer port's GUID when it is a channel adapter, "(8f10403961355)", as
  // ibnetdiscover writes it, and ibsim's link options w=N, s=N and e=N
  // (width, speed, extended speed: no timing of ours uses them). Moves pos
  // past them and returns the GUID, if any, for CheckPeerGuids; the link
  // options are checked, not used.
  std::optional<Guid> ReferenceExtras(const std::string& line, size_t& pos) const {
    std::optional<Guid> peer_guid;
    size_t p = SkipBlanks(line, pos);
    if (p < line.size() && line[p] == '(') {
      peer_guid = ParenthesizedGuid(line, p);
      pos = p;
    }
    for (p = SkipBlanks(line, pos);
         p + 1 < line.size() && (line[p] == 'w' || line[p] == 's' || line[p] == 'e') && line[p + 1] == '=';
         p = SkipBlanks(line, pos)) {
      size_t end = line.find_first_of(" \t#", p);
      if (end == std::string::npos) end = line.size();
      long long v = 0;
      if (!ParseInteger(line.substr(p + 2, end - p - 2), &v))
        Fail("expected an integer in the link option '" + Excerpt(line.substr(p, end - p)) + "'");
      pos = end;
    }
    return peer_guid;
  }

  void ParsePort(const std::string& line) {
    if (nodes_.empty()) Fail("port line before any node header");
    RawNode& n = nodes_.back();
    if (line[0] == '@') Fail("port aliases ('@') are not supported");
    RawPort p;
    p.line = line_no_;
    size_t pos = 0;
    const long num = BracketedNumber(line, pos);
    if (num < 0) Fail("expected '[PORT]' at the start of a port line");
    if (num < 1 || num > n.num_ports)
      Fail("port " + std::to_string(num) + " is outside 1.." +
           std::to_string(n.num_ports) + " of \"" + n.id + "\"");
    p.num = static_cast<int>(num);
    if (pos < line.size() && line[pos] == '(') p.port_guid = ParenthesizedGuid(line, pos);
    pos = SkipBlanks(line, pos);
    const size_t reference = pos;
    p.remote = Quoted(line, pos);
    if (pos < line.size() && line[pos] == '[') {
      const long rp = BracketedNumber(line, pos);
      if (rp < 1 || rp > kMaxSwitchPorts)
        Fail("expected '[PORT]' with a port from 1 to " + std::to_string(kMaxSwitchPorts) + " after \"" +
             p.remote + "\"");
      p.remote_port = static_cast<int>(rp);
    }
    p.peer_guid = ReferenceExtras(line, pos);
    ExpectLineEnd(line, pos, line.substr(reference, pos - reference));
    size_t hash = line.find('#', pos);
    if (hash != std::string::npos && n.type == NodeType::kCa) {
      // "# lid 1 lmc 0 "Switch1" lid 2 4xSDR": our LID comes before the quote.
      std::string comment = line.substr(hash + 1);
      size_t q = comment.find('"');
      FindLidLmc(comment.substr(0, q), &p.lid, &p.lmc);
    }
    for (const RawPort& other : n.ports)
      if (other.num == p.num)
        Fail("port " + std::to_string(p.num) + " of \"" + n.id + "\" is listed twice");
    if (!record_open_)
      Fail("port line after the end of the record of \"" + n.id +
           "\": ibsim ends a record at a blank or other line and ignores port lines after it: expected it "
           "among its node's port lines, with no blank line between");
    n.ports.push_back(std::move(p));
    record_open_ = static_cast<int>(n.ports.size()) < n.num_ports;
  }

 public:
  const std::unordered_map<std::string, size_t>& names() const { return names_; }

 private:
  std::istream& is_;
  std::string file_;
  int line_no_ = 0;
  std::vector<RawNode> nodes_;
  std::unordered_map<std::string, size_t> names_;
  GuidCounter switch_guid_{0x200000, 0x200000};
  Guid switch_port_guid_ = 0;  // of the next switch header, from "switchguid=0xNODE(PORT)"
  GuidCounter ca_guid_{0x100000, 0x100000};
  bool record_open_ = false;       // after a header, until its last port or a line ending it
  GuidCounter router_guid_{0, 0};  // ibsim's guids[ROUTER_NODE]: no initialiser, so 0
};

// Where a switch or end port of the fabric is in the file, so that a clash
// names both lines: its node's header, or for an adapter port its port line.
struct Origin {
  int line = 0;
  std::string what;  // switch "S1", port 1 of "H1"
};

struct Origins {
  std::vector<Origin> switches, end_ports;  // by Fabric index
};

struct Endpoint {
  size_t node;
  int port;
};

// A port GUID as a node's own record gives it, and the line that does.
struct OwnGuid {
  Guid guid;
  int line;
};

// Port `port`'s GUID by its node's record: a switch's port 0 GUID (the one
// GUID its ports have); for a channel adapter the "(GUID)" on the port's own
// line, else node GUID + port, as ibsim numbers them.
OwnGuid OwnPortGuid(const RawNode& n, int port) {
  if (n.type == NodeType::kSwitch) return {n.guid, n.line};
  for (const RawPort& p : n.ports)
    if (p.num == port && p.port_guid) return {p.port_guid, p.line};
  return {n.guid + static_cast<Guid>(port), n.line};
}

Fabric BuildFabric(const std::vector<RawNode>& nodes, const std::unordered_map<std::string, size_t>& names,
                   const std::string& file, Origins* where) {
  Fabric f;
  std::vector<int> index(nodes.size(), -1);  // switch or end-port index base
  for (size_t i = 0; i < nodes.size(); ++i) {
    const RawNode& n = nodes[i];
    if (n.type != NodeType::kSwitch) continue;
    Switch sw;
    sw.guid = n.guid;
    sw.port_guid = n.port_guid;
    sw.name = n.desc;
    sw.num_ports = n.num_ports;
    sw.lid = n.lid;
    sw.lmc = static_cast<uint8_t>(n.lmc);
    sw.ports.resize(n.num_ports + 1);
    index[i] = static_cast<int>(f.switches.size());
    f.switches.push_back(std::move(sw));
    where->switches.push_back({n.line, "switch \"" + n.id + "\""});
  }
  // End ports: every cabled CA port, in file order. Map (node, port) -> index.
  std::unordered_map<size_t, std::vector<std::pair<int, int>>> ca_ports;
  auto resolve = [&](const RawPort& p) -> Endpoint {
    auto it = names.find(p.remote);
    if (it == names.end())
      throw InputError(file, p.line, "no node named \"" + p.remote + "\" in the file");
    const RawNode& r = nodes[it->second];
    if (p.remote_port > r.num_ports)
      throw InputError(file, p.line, "\"" + p.remote + "\" has only " +
                                         std::to_string(r.num_ports) + " ports, not " +
                                         std::to_string(p.remote_port));
    return {it->second, p.remote_port};
  };
  auto end_port_of = [&](size_t node, int port, const RawPort* self) -> int {
    for (auto& [num, idx] : ca_ports[node])
      if (num == port) return idx;
    const RawNode& n = nodes[node];
    EndPort ep;
    ep.node_guid = n.guid;
    ep.port_num = port;
    ep.port_guid = OwnPortGuid(n, port).guid;
    ep.name = n.desc;
    if (self) {
      ep.base_lid = self->lid;
      if (self->lmc > 0) ep.lmc = static_cast<uint8_t>(self->lmc);
    }
    int idx = static_cast<int>(f.end_ports.size());
    f.end_ports.push_back(ep);
    where->end_ports.push_back(
        {self ? self->line : n.line, "port " + std::to_string(port) + " of \"" + n.id + "\""});
    ca_ports[node].push_back({port, idx});
    return idx;
  };
  // The record id of switch `sw`, for a message: a search, only on errors.
  auto switch_id = [&](int sw) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].type == NodeType::kSwitch && index[i] == sw) return nodes[i].id;
    return std::string("?");
  };
  // Per end port, the line that cabled it: its adapter's own port line, or
  // (the adapter's record lacking one) a switch's.
  struct Cabled {
    int line = 0;
    bool by_adapter = false;
  };
  std::vector<Cabled> cabled_at;
  auto note_cabled = [&](int ep, int line, bool by_adapter) {
    if (static_cast<size_t>(ep) >= cabled_at.size()) cabled_at.resize(static_cast<size_t>(ep) + 1);
    cabled_at[static_cast<size_t>(ep)] = {line, by_adapter};
  };
  // CA records first so their own LID comments are seen.
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].type != NodeType::kCa) continue;
    for (const RawPort& p : nodes[i].ports) {
      Endpoint r = resolve(p);
      if (nodes[r.node].type != NodeType::kSwitch)
        throw InputError(file, p.line, "\"" + nodes[i].id + "\" is cabled straight to "
                                       "another channel adapter; only switched fabrics are supported");
      int ep = end_port_of(i, p.num, &p);
      int sw = index[r.node];
      Peer& slot = f.switches[sw].ports[r.port];
      if (slot.connected() && !(slot.is_end_port() && slot.index == ep))
        throw InputError(file, p.line, "port " + std::to_string(r.port) + " of \"" +
                                       nodes[r.node].id + "\" is already cabled elsewhere");
      ConnectEndPort(f, ep, sw, r.port);
      note_cabled(ep, p.line, true);
    }
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].type != NodeType::kSwitch) continue;
    const int a = index[i];
    for (const RawPort& p : nodes[i].ports) {
      Endpoint r = resolve(p);
      Peer& mine = f.switches[a].ports[p.num];
      if (nodes[r.node].type == NodeType::kCa) {
        int ep = end_port_of(r.node, r.port, nullptr);
        // The adapter port may be cabled to another switch already, by the
        // adapter's own line or another switch's: this line is then the
        // one at odds with it (moving the port here put the blame on the
        // other switch, with no line).
        const EndPort& e = f.end_ports[ep];
        const bool elsewhere = e.switch_index >= 0 && !(e.switch_index == a && e.switch_port == p.num);
        if (mine.connected() && !(mine.is_end_port() && mine.index == ep))
          throw InputError(file, p.line,
                           "port " + std::to_string(p.num) + " of \"" + nodes[i].id +
                               "\" disagrees with the record of \"" + p.remote + "\"");
        if (elsewhere) {
          const Cabled& by = cabled_at[static_cast<size_t>(ep)];
          const std::string other =
              "port " + std::to_string(e.switch_port) + " of \"" + switch_id(e.switch_index) + "\"";
          throw InputError(
              file, p.line,
              "port " + std::to_string(p.num) + " of \"" + nodes[i].id + "\" is cabled to port " +
                  std::to_string(r.port) + " of \"" + p.remote + "\", which line " + std::to_string(by.line) +
                  (by.by_adapter ? " (its own record) cables to " + other : " cables to " + other + " too"));
        }
        if (!mine.connected()) {
          ConnectEndPort(f, ep, a, p.num);
          note_cabled(ep, p.line, false);
        }
        continue;
      }
      const int b = index[r.node];
      Peer& theirs = f.switches[b].ports[r.port];
      const bool same = mine.is_switch() && mine.index == b && mine.port == r.port;
      if ((mine.connected() && !same) ||
          (theirs.connected() && !(theirs.is_switch() && theirs.index == a &&
                                    theirs.port == p.num)))
        throw InputError(file, p.line, "cable \"" + nodes[i].id + "\"[" +
                                       std::to_string(p.num) + "] - \"" + p.remote + "\"[" +
                                       std::to_string(r.port) +
                                       "] disagrees with another record of either end");
      ConnectSwitches(f, a, p.num, b, r.port);
    }
  }
  return f;
}

// The peer port GUID a port line gives after its reference, as ibnetdiscover
// writes "(2c90300001231)", is the one the peer's own record gives: else a
// cable or a record is wrong, and the parser cannot tell which.
void CheckPeerGuids(const std::vector<RawNode>& nodes, const std::unordered_map<std::string, size_t>& names,
                    const std::string& file) {
  for (const RawNode& n : nodes)
    for (const RawPort& p : n.ports) {
      if (!p.peer_guid) continue;
      const RawNode& peer = nodes[names.at(p.remote)];
      const OwnGuid own = OwnPortGuid(peer, p.remote_port);
      if (own.guid == *p.peer_guid) continue;
      const std::string peer_port = "port " + std::to_string(p.remote_port) + " of \"" + peer.id + "\"";
      throw InputError(file, p.line,
                       "port " + std::to_string(p.num) + " of \"" + n.id + "\" gives " + peer_port +
                           " port GUID " + Hex16(*p.peer_guid) + ", but " +
                           (peer.type == NodeType::kSwitch ? "switch \"" + peer.id + "\"" : peer_port) +
                           " has port GUID " + Hex16(own.guid) + " (line " + std::to_string(own.line) +
                           "): expected the peer's own port GUID");
    }
}

// Node GUIDs name nodes (ibsim refuses a repeat; ibnetdiscover never writes
// one): the later node's header is named with the earlier one's.
void CheckNodeGuids(const std::vector<RawNode>& nodes, const std::string& file) {
  std::unordered_map<Guid, size_t> first;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto [it, fresh] = first.emplace(nodes[i].guid, i);
    if (fresh) continue;
    const RawNode& other = nodes[it->second];
    throw InputError(file, nodes[i].line,
                     "node GUID " + Hex16(nodes[i].guid) + " of \"" + nodes[i].id + "\" is also that of \"" +
                         other.id + "\" (line " + std::to_string(other.line) +
                         "): expected every node GUID once");
  }
}

// A switch or end port as the checks below see it, in file order.
struct Claim {
  const Origin* origin;
  Guid guid;    // an end port's port GUID, a switch's node GUID
  long lo, hi;  // LIDs; lo 0: none
  Guid port_zero_guid = 0;  // a switch's other port 0 GUID, if it has one
};

std::vector<Claim> ClaimsInFileOrder(const Fabric& f, const Origins& where) {
  std::vector<Claim> claims;
  for (size_t s = 0; s < f.switches.size(); ++s) {
    const Switch& sw = f.switches[s];
    const Guid other = PortZeroGuid(sw) != sw.guid ? PortZeroGuid(sw) : 0;
    claims.push_back({&where.switches[s], sw.guid, sw.lid, sw.lid + (1L << sw.lmc) - 1, other});
  }
  for (size_t e = 0; e < f.end_ports.size(); ++e) {
    const EndPort& ep = f.end_ports[e];
    claims.push_back({&where.end_ports[e], ep.port_guid, ep.base_lid, ep.base_lid + ep.lid_count() - 1L});
  }
  std::stable_sort(claims.begin(), claims.end(),
                   [](const Claim& a, const Claim& b) { return a.origin->line < b.origin->line; });
  return claims;
}

// Port GUIDs key guid2lid files and the SA: each once, a switch's port 0
// GUID included, the later line named with the earlier.
void CheckPortGuids(const std::vector<Claim>& claims, const std::string& file) {
  std::unordered_map<Guid, const Claim*> first;
  auto claim = [&](const Claim& c, Guid guid) {
    const auto [it, fresh] = first.emplace(guid, &c);
    if (fresh) return;
    const Origin& other = *it->second->origin;
    throw InputError(file, c.origin->line,
                     c.origin->what + " has port GUID " + Hex16(guid) + ", as has " + other.what + " (line " +
                         std::to_string(other.line) + "): expected every port GUID once");
  };
  for (const Claim& c : claims) {
    claim(c, c.guid);
    if (c.port_zero_guid) claim(c, c.port_zero_guid);
  }
}

// LIDs are in the file for every switch and end port (ibnetdiscover once
// the SM has swept) or for none (the generator's files: every command then
// lays them out at DefaultLmc). A mix would silently get that layout too,
// dropping the LIDs the file has, so it is refused at the first port
// without one.
void CheckLidsAllOrNone(const std::vector<Claim>& claims, const std::string& file) {
  const Claim* with = nullptr;
  const Claim* without = nullptr;
  for (const Claim& c : claims) {
    const Claim*& first = c.lo != 0 ? with : without;
    if (!first) first = &c;
  }
  if (!with || !without) return;
  throw InputError(file, without->origin->line,
                   without->origin->what + " has no LID (no 'lid N', or 'lid 0', in its comment), but " +
                       with->origin->what + " (line " + std::to_string(with->origin->line) +
                       ") has one: expected LIDs on all switches and end ports or on none");
}

// Each LID belongs to one port: a clash names both claimants and lines.
void CheckLidClashes(const std::vector<Claim>& claims, const std::string& file) {
  std::vector<const Claim*> owner;  // by LID; sized on the first LID
  for (const Claim& c : claims) {
    if (c.lo == 0) continue;
    if (owner.empty()) owner.assign(kMaxUnicastLid + 1, nullptr);
    for (long lid = c.lo; lid <= c.hi; ++lid) {
      const Claim* other = owner[lid];
      if (!other) {
        owner[lid] = &c;
        continue;
      }
      throw InputError(file, c.origin->line,
                       "LID " + std::to_string(lid) + " of " + c.origin->what + " (" + LidRange(c.lo, c.hi) +
                           ") is also claimed by " + other->origin->what + " (" +
                           LidRange(other->lo, other->hi) + ", line " + std::to_string(other->origin->line) +
                           "): expected every LID to belong to one port");
    }
  }
}

}  // namespace

Fabric ParseNetFile(std::istream& is, const std::string& file) {
  Parser parser(is, file);
  std::vector<RawNode> nodes = parser.Run();
  // Said of the whole file: "FILE:0:" read as a line number.
  if (nodes.empty())
    throw Error(file + ": no node records in it (expected ibnetdiscover output or an ibsim net file: "
                       "'Switch N \"name\"', 'Ca N \"name\"' headers and their '[PORT] \"peer\"[PORT]' lines)");
  Origins where;
  Fabric f = BuildFabric(nodes, parser.names(), file, &where);
  if (f.switches.empty()) throw Error(file + ": the fabric has no switch (expected a switched fabric)");
  CheckPeerGuids(nodes, parser.names(), file);
  // With lines, what Fabric::Finalize would refuse without them.
  CheckNodeGuids(nodes, file);
  const std::vector<Claim> claims = ClaimsInFileOrder(f, where);
  CheckPortGuids(claims, file);
  CheckLidsAllOrNone(claims, file);
  CheckLidClashes(claims, file);
  try {
    f.Finalize();
  } catch (const Error& e) {
    throw Error(file + ": " + e.what());
  }
  return f;
}

Fabric ReadNetFile(const std::string& path) {
  std::ifstream in = OpenInputFile(path, "topology file");
  return ParseNetFile(in, path);
}

bool DefaultLidsFit(const Fabric& f, int lmc) {
  if (lmc < 0 || lmc > 7) return false;
  const long hosts = static_cast<long>(f.end_ports.size());
  const long first_switch = hosts == 0 ? 1 : (1L << lmc) * (hosts + 1);  // as AssignDefaultLids
  return first_switch - 1 <= kMaxUnicastLid &&
         first_switch + static_cast<long>(f.switches.size()) - 1 <= kMaxUnicastLid;
}

int LargestFittingLmc(const Fabric& f, int at_most) {
  int lmc = std::min(at_most, 7);
  while (lmc >= 0 && !DefaultLidsFit(f, lmc)) --lmc;
  return lmc;
}

bool CarriesLids(const Fabric& f) {
  for (const Switch& sw : f.switches)
    if (sw.lid != 0) return true;
  for (const EndPort& ep : f.end_ports)
    if (ep.base_lid != 0) return true;
  return false;
}

namespace {

// What to do when the default layout at `lmc` overflows: the largest LMC
// whose layout fits, or that none does.
std::string LargestFittingLmcHint(const Fabric& f, int lmc) {
  const int fits = LargestFittingLmc(f, lmc - 1);
  if (fits >= 0) return "; LMC " + std::to_string(fits) + " is the largest that fits";
  return "; no LMC fits: the fabric has more ports than unicast LIDs";
}

}  // namespace

void AssignDefaultLids(Fabric& f, int lmc) {
  if (lmc < 0 || lmc > 7) throw Error("LMC must be 0..7, got " + std::to_string(lmc));
  const long step = 1L << lmc;
  long next = 0;
  for (size_t i = 0; i < f.end_ports.size(); ++i) {
    EndPort& ep = f.end_ports[i];
    ep.lmc = static_cast<uint8_t>(lmc);
    ep.base_lid = 0;
    long lid = step * static_cast<long>(i + 1);
    if (lid + step - 1 > kMaxUnicastLid)
      throw Error(std::to_string(f.end_ports.size()) + " end ports at LMC " + std::to_string(lmc) +
                  " do not fit in the unicast LID space (0xBFFF)" + LargestFittingLmcHint(f, lmc));
    ep.base_lid = static_cast<Lid>(lid);
    next = lid + step;
  }
  if (next == 0) next = 1;
  for (Switch& sw : f.switches) {
    if (next > kMaxUnicastLid)
      throw Error("the switch LIDs after " + std::to_string(f.end_ports.size()) + " end ports at LMC " +
                  std::to_string(lmc) + " do not fit in the unicast LID space (0xBFFF)" +
                  LargestFittingLmcHint(f, lmc));
    sw.lid = static_cast<Lid>(next++);
    sw.lmc = 0;
  }
  f.Finalize();
}

}  // namespace ibu
