#!/bin/sh
# tests/html/browser_check.sh HTML_FILE OUT_DIR: an HTML report in a real headless browser.
#
# Debian's chromium, driven through WebDriver (chromedriver on a loopback port, its HTTP API
# spoken with curl and jq), loads file://HTML_FILE with the network off and checks, one line
# each (PASS or FAIL, with what was wrong):
#   sections  every <section id> of SECTIONS present once, in that order
#   svg       every outermost <svg> (at both widths) has a non-zero box, a <title> and at least
#             one drawn child (a shape, text or image with a non-zero bounding box)
#   plots     every survey section (article.survey-section) draws each of its plots (data-plots
#             of them) as an svg.section-plot holding at least one measured mark (.mark: a
#             point, a curve, a bar, a heat-map cell) with a non-zero bounding box: axes and
#             labels alone do not count
#   sortable  in every table.sortable, clicking a header (WebDriver mouse clicks, twice) changes the
#             rows' order and leaves that column sorted one way or the other; a cell's key is
#             its data-sort attribute when it has one, else its text (numbers when every key
#             of the column reads as one); columns with fewer than 2 distinct keys are skipped
#   phone     at 390 px wide nothing is wider than the screen (wide tables scroll in a box)
#   console   no error in the browser's log (console.error, uncaught exceptions, failed loads),
#             from the load, the clicks and the resizes
#   network   no request leaves the file: the browser's performance log (Network.requestWillBeSent)
#             and the page's resource timing entries name nothing but the file itself, data:,
#             blob: and about: URLs
#   screenshot full-page screenshots at 1280 px (desktop.png) and 390 px (phone.png) in OUT_DIR,
#             each a PNG of that width that is not a single colour (png_check)
# Exits 0 when every check passed, 1 when one failed, 2 when the check itself could not run
# (no chromium, chromedriver or jq; the browser did not start; the hang guard fired).
#
# The network: as root (or where unprivileged user namespaces work), the browser runs in its
# own network namespace (unshare --net: only a loopback exists) and PID namespace (whatever it
# leaves behind dies with the namespace). Elsewhere it runs on the host's network with every
# host name resolving to nothing (--host-resolver-rules) and every request sent to a dead proxy
# (--proxy-server=127.0.0.1:9); the first output line says which. Either way a request that
# leaves the file is caught by the network check, not by the network.
#
# Environment: CHROMIUM (/usr/bin/chromium), CHROMEDRIVER (/usr/bin/chromedriver), PNG_CHECK
# (the png_check program; built from png_check.c with cc -lz into a temporary directory when
# unset), SECTIONS (the ids, in order: verdict node placement init binding scaling matrix
# sections threads conditions commands), BROWSER_CHECK_TIMEOUT (90 s: the hang guard over everything,
# never a verdict), BROWSER_CHECK_NETWORK (auto; "flags" forces the host network with the
# flags above).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
say() { echo "browser_check: $*" >&2; }

# kill_ours DIR: SIGKILL to every process whose command line names a file under DIR (the run's
# own temporary directory: chromium's --user-data-dir, chromedriver's --log-path), never one
# found by a name alone.
kill_ours() {
    for cmdline in /proc/[0-9]*/cmdline; do
        pid=${cmdline#/proc/}
        pid=${pid%/cmdline}
        [ "$pid" = "$$" ] && continue
        { tr '\0' ' ' <"$cmdline"; } 2>/dev/null | grep -qF -- "$1/" && kill -9 "$pid" 2>/dev/null
    done
}

if [ "${1:-}" != "--inner" ]; then
    # --- outside: arguments, tools, then the inner part under unshare and a hang guard ------
    [ $# -eq 2 ] || { say "usage: browser_check.sh HTML_FILE OUT_DIR"; exit 2; }
    [ -f "$1" ] && [ -r "$1" ] || { say "$1: no such readable file"; exit 2; }
    file=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    mkdir -p "$2" || { say "cannot create $2"; exit 2; }
    out=$(cd "$2" && pwd)
    CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
    CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
    for tool in "$CHROMIUM" "$CHROMEDRIVER" jq curl; do
        command -v "$tool" >/dev/null 2>&1 \
            || { say "$tool is missing (scripts/setup-deps.sh --test installs chromium, chromium-driver, jq, curl)"; exit 2; }
    done
    work=$(mktemp -d "${TMPDIR:-/tmp}/browser-check.XXXXXX") || { say "cannot create a temporary directory"; exit 2; }
    # Whatever the inner part left behind (killed by the hang guard before its own clean-up
    # ran) goes with the directory.
    trap 'kill_ours "$work"; rm -rf "$work"' EXIT
    trap 'exit 2' INT TERM HUP
    if [ -z "${PNG_CHECK:-}" ]; then
        PNG_CHECK=$work/png_check
        cc -std=c17 -O2 -o "$PNG_CHECK" "$HERE/png_check.c" -lz 2>"$work/cc.err" \
            || { say "cannot build png_check.c: $(head -n 3 "$work/cc.err")"; exit 2; }
    fi
    export CHROMIUM CHROMEDRIVER PNG_CHECK
    limit=${BROWSER_CHECK_TIMEOUT:-90}
    # A private network and PID namespace when one can be had: first as root, then as a user
    # mapped to root in a user namespace.
    how=""
    why=""
    if [ "${BROWSER_CHECK_NETWORK:-auto}" != flags ]; then
        if [ "$(id -u)" -eq 0 ] && unshare --net --pid --fork --mount-proc true 2>/dev/null; then
            how="unshare --net --pid --fork --mount-proc --kill-child"
            why="as root"
        elif unshare --user --map-root-user --net --pid --fork --mount-proc true 2>/dev/null; then
            how="unshare --user --map-root-user --net --pid --fork --mount-proc --kill-child"
            why="in a user namespace"
        fi
    fi
    # shellcheck disable=SC2086 # $how is a command line
    timeout -k 5 "$limit" $how sh "$0" --inner "$file" "$out" "$work" "$why"
    status=$?
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        say "hang guard: not finished after $limit s (BROWSER_CHECK_TIMEOUT); every process of the check was stopped"
        exit 2
    fi
    exit "$status"
fi

# --- inside: one chromedriver, one browser session, the checks ----------------------------
FILE=$2
OUT=$3
WORK=$4
NAMESPACE=${5:-}
SECTIONS=${SECTIONS:-verdict node placement init binding scaling matrix sections threads conditions commands}
PROFILE=$WORK/profile
DRIVER_PID=""
SESSION=""
PORT=""
FAILED=0
PASSED=0

pass() { echo "PASS $*"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $*"; FAILED=$((FAILED + 1)); }
broken() { say "$*"; exit 2; }

# Whatever happens: the session closed, chromedriver and every process that names our
# directory stopped (in a namespace the kernel does the rest when this shell, its init, exits).
cleanup() {
    [ -n "$SESSION" ] && curl -s -m 5 -X DELETE "http://127.0.0.1:$PORT/session/$SESSION" >/dev/null 2>&1
    [ -n "$DRIVER_PID" ] && kill "$DRIVER_PID" 2>/dev/null
    kill_ours "$WORK"
    [ -n "$DRIVER_PID" ] && wait "$DRIVER_PID" 2>/dev/null
    SESSION=""
    DRIVER_PID=""
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

if [ -n "$NAMESPACE" ]; then
    ip link set lo up 2>/dev/null || broken "cannot bring up the loopback of the private network namespace (ip link set lo up)"
    echo "network: off (a private network namespace, $NAMESPACE: unshare --net)"
else
    echo "network: the host's, with every name unresolvable and every request sent to a dead proxy (chromium flags; no namespace here)"
fi

# chromedriver on a free loopback port: in a namespace any port is free; on the host a port
# that is taken makes chromedriver exit at once, and the next one is tried.
start_driver() {
    base=$((20000 + $$ % 20000))
    for try in 0 1 2 3 4 5 6 7 8 9; do
        PORT=$((base + try * 7))
        "$CHROMEDRIVER" --port="$PORT" --allowed-ips=127.0.0.1 --log-path="$WORK/chromedriver.log" >"$WORK/chromedriver.out" 2>&1 &
        DRIVER_PID=$!
        n=0
        while [ "$n" -lt 100 ]; do
            kill -0 "$DRIVER_PID" 2>/dev/null || break
            curl -s -m 1 "http://127.0.0.1:$PORT/status" 2>/dev/null | grep -q '"ready": *true' && return 0
            sleep 0.05
            n=$((n + 1))
        done
        kill "$DRIVER_PID" 2>/dev/null
        wait "$DRIVER_PID" 2>/dev/null
        DRIVER_PID=""
    done
    broken "chromedriver did not start on any of 10 loopback ports: $(tail -n 3 "$WORK/chromedriver.out" "$WORK/chromedriver.log" 2>/dev/null | tr '\n' ' ')"
}

# wd METHOD PATH [JSON]: one WebDriver command; its value (JSON, one line) on stdout, its
# error on stderr.
wd() {
    if [ -n "${3:-}" ]; then
        r=$(curl -s -m 30 -X "$1" -H 'Content-Type: application/json' --data-binary "$3" "http://127.0.0.1:$PORT$2")
    else
        r=$(curl -s -m 30 -X "$1" "http://127.0.0.1:$PORT$2")
    fi || { say "WebDriver $1 $2: no answer (curl exit $?)"; return 1; }
    # Most answers are {"value":...} with no error in them: unwrapped by the shell (a jq for
    # each costs 30 ms); anything else goes through jq.
    case $r in
    '{"value":'*'}')
        case $r in
        *'"error"'*) ;;
        *)
            r=${r#'{"value":'}
            printf '%s\n' "${r%'}'}"
            return 0
            ;;
        esac
        ;;
    esac
    v=$(printf '%s\n' "$r" | jq -r '.value | if type == "object" and has("error")
        then "error \(.error): \(.message | split("\n")[0])" else "ok \(tojson)" end' 2>&1)
    case $v in
    "ok "*) printf '%s\n' "${v#ok }" ;;
    *) say "WebDriver $1 $2: ${v#error }"; return 1 ;;
    esac
}
S() { echo "/session/$SESSION$1"; }
# js SCRIPT [ARGS_JSON]: runs SCRIPT (a function body) in the page, prints what it returns.
js() { jsq "$(printf '%s' "$1" | jq -Rsc .)" "${2:-[]}"; }
# jsq QUOTED_SCRIPT [ARGS_JSON]: the same with the script already a JSON string.
jsq() { wd POST "$(S /execute/sync)" "{\"script\":$1,\"args\":${2:-[]}}"; }
# cdp COMMAND PARAMS_JSON: a DevTools command through chromedriver.
cdp() { wd POST "$(S /goog/cdp/execute)" "{\"cmd\":\"$1\",\"params\":$2}"; }
# The browser's log of TYPE (browser, performance) since the last call.
log() { wd POST "$(S /se/log)" "{\"type\":\"$1\"}"; }

# click REF: a mouse click (press and release, trusted events) on the element's centre through
# WebDriver's actions, 40 ms against 150 for its element click, which waits for navigations;
# that one (it scrolls the element into view first) when the element is out of the viewport.
click() {
    wd POST "$(S /actions)" "{\"actions\":[{\"type\":\"pointer\",\"id\":\"mouse\",\"parameters\":{\"pointerType\":\"mouse\"},\"actions\":[{\"type\":\"pointerMove\",\"duration\":0,\"origin\":{\"element-6066-11e4-a52e-4f735466cecf\":\"$1\"},\"x\":0,\"y\":0},{\"type\":\"pointerDown\",\"button\":0},{\"type\":\"pointerUp\",\"button\":0}]}]}" >/dev/null 2>&1 \
        || wd POST "$(S "/element/$1/click")" '{}' >/dev/null
}

# The page at WIDTH css pixels (HEIGHT of screen), a phone's when MOBILE is true.
viewport() { # WIDTH HEIGHT MOBILE
    cdp Emulation.setDeviceMetricsOverride "{\"width\":$1,\"height\":$2,\"deviceScaleFactor\":1,\"mobile\":$3}" >/dev/null \
        && js 'return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))' >/dev/null
}

start_driver
caps=$(jq -cn --arg bin "$CHROMIUM" --arg prof "$PROFILE" '{capabilities: {alwaysMatch: {
    browserName: "chrome", pageLoadStrategy: "normal",
    timeouts: {pageLoad: 30000, script: 20000, implicit: 0},
    "goog:loggingPrefs": {browser: "ALL", performance: "ALL"},
    "goog:chromeOptions": {binary: $bin, args: ["--headless=new", "--no-sandbox", "--disable-gpu",
        "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--hide-scrollbars", "--window-size=1280,900", "--user-data-dir=\($prof)",
        "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]}}}}')
session=$(wd POST /session "$caps") || broken "the browser did not start: $(tail -n 5 "$WORK/chromedriver.log" | tr '\n' ' ')"
SESSION=$(printf "%s\n" "$session" | jq -r '.sessionId')

# A blank page first, its log entries dropped: what remains is the file's.
wd POST "$(S /url)" '{"url":"about:blank"}' >/dev/null || broken "cannot open about:blank"
log browser >/dev/null
log performance >/dev/null
# file:// + the path, each segment percent-encoded.
URL=file://$(jq -rn --arg p "$FILE" '$p | split("/") | map(@uri) | join("/")')
viewport 1280 900 false || broken "cannot set the desktop viewport"
wd POST "$(S /url)" "$(jq -cn --arg u "$URL" '{url: $u}')" >/dev/null || broken "cannot load $URL"
echo "loaded $URL"
log browser >"$WORK/log.browser"
log performance >"$WORK/log.performance"

# --- sections ---------------------------------------------------------------------------
ids=$(js 'return Array.from(document.querySelectorAll("section[id]"), s => s.id)') || broken "cannot read the sections"
problems=$(jq -rn --argjson have "$ids" --arg want "$SECTIONS" '
    ($want | split(" ") | map(select(. != ""))) as $w
    | [$w[] as $id | ($have | map(select(. == $id)) | length) as $n
       | if $n == 0 then "\($id) missing" elif $n > 1 then "\($id) \($n) times" else empty end]
    + (reduce ($have[] | select(. as $h | $w | any(.[]; . == $h))) as $x ([]; if any(.[]; . == $x) then . else . + [$x] end)
       | if . == ($w | map(select(. as $id | $have | any(.[]; . == $id)))) then [] else ["out of order: \(join(" "))"] end)
    | join("; ")')
if [ -z "$problems" ]; then
    pass "sections: all $(echo "$SECTIONS" | wc -w) present once, in order ($SECTIONS)"
else
    fail "sections: $problems (want, in order: $SECTIONS; the page has: $(printf "%s\n" "$ids" | jq -r 'join(" ")'))"
fi

# --- pictures: every outermost svg drawn, at the current width ------------------------------
SVG_JS='
const out = [];
document.querySelectorAll("svg").forEach((svg, i) => {
  if (svg.parentElement && svg.parentElement.closest("svg")) return;
  const box = svg.getBoundingClientRect();
  const name = (svg.id ? "#" + svg.id : "svg " + (i + 1)) + (svg.closest("section[id]") ? " in section " + svg.closest("section[id]").id : "");
  const title = svg.querySelector("title");
  let drawn = 0;
  svg.querySelectorAll("path,rect,circle,ellipse,line,polyline,polygon,text,image,use,foreignObject").forEach(el => {
    if (el.closest("defs,clipPath,mask,marker,pattern,symbol")) return;
    try { const b = el.getBBox(); if (b.width > 0 || b.height > 0) drawn++; } catch (e) {}
  });
  const bad = [];
  if (!(box.width > 0 && box.height > 0)) bad.push("its box is " + box.width + " x " + box.height);
  if (!title || !title.textContent.trim()) bad.push("no <title>");
  if (!drawn) bad.push("nothing drawn in it");
  out.push({name: name, w: Math.round(box.width), h: Math.round(box.height), drawn: drawn, bad: bad});
});
return out;'
check_svg() { # WHERE
    svgs=$(js "$SVG_JS") || { fail "svg ($1): cannot measure the pictures"; return; }
    n=$(printf "%s\n" "$svgs" | jq 'length')
    bad=$(printf "%s\n" "$svgs" | jq -r '[.[] | select(.bad | length > 0) | "\(.name): \(.bad | join(", "))"] | join("; ")')
    if [ -n "$bad" ]; then
        fail "svg ($1): $bad"
    else
        pass "svg ($1): $n pictures, each with a title and drawn ($(printf "%s\n" "$svgs" | jq -r '[.[] | "\(.w)x\(.h)"] | join(" ")'))"
    fi
}
check_svg "1280 px"

# --- the survey's sections: each plot drawn with marks of its data ---------------------------
PLOTS_JS='
const out = [];
document.querySelectorAll("article.survey-section").forEach(a => {
  const want = parseInt(a.getAttribute("data-plots") || "0", 10);
  const svgs = Array.from(a.querySelectorAll("svg.section-plot"));
  const bad = [];
  if (svgs.length !== want) bad.push(svgs.length + " of its " + want + " plots drawn");
  svgs.forEach((svg, i) => {
    let marks = 0;
    svg.querySelectorAll(".mark").forEach(el => { try { const b = el.getBBox(); if (b.width > 0 || b.height > 0) marks++; } catch (e) {} });
    if (!marks) bad.push("plot " + (i + 1) + " (" + ((svg.querySelector("title") || {}).textContent || "no title") + ") has no mark drawn");
  });
  out.push({name: a.id, plots: svgs.length, bad: bad});
});
return out;'
plots=$(js "$PLOTS_JS") || plots=""
if [ -z "$plots" ]; then
    fail "plots: cannot read the survey sections"
elif [ "$(printf "%s\n" "$plots" | jq 'length')" -eq 0 ]; then
    pass "plots: no survey section in the page"
else
    bad=$(printf "%s\n" "$plots" | jq -r '[.[] | select(.bad | length > 0) | "\(.name): \(.bad | join(", "))"] | join("; ")')
    if [ -n "$bad" ]; then
        fail "plots: $bad"
    else
        pass "plots: $(printf "%s\n" "$plots" | jq -r '[.[] | "\(.name) \(.plots)"] | join(", ")') plots, each with marks drawn"
    fi
fi

# --- screenshots --------------------------------------------------------------------------
# shot NAME WIDTH: the whole page (not only the screen) as OUT/NAME.png, checked.
shot() {
    metrics=$(cdp Page.getLayoutMetrics '{}') || { fail "screenshot $1: cannot measure the page"; return; }
    full=$(printf "%s\n" "$metrics" | jq '.cssContentSize.height | ceil')
    height=$((full > 16000 ? 16000 : full))
    cut=""
    [ "$full" -gt "$height" ] && cut=" (the first $height px of $full)"
    cdp Page.captureScreenshot "{\"format\":\"png\",\"captureBeyondViewport\":true,\"clip\":{\"x\":0,\"y\":0,\"width\":$2,\"height\":$height,\"scale\":1}}" \
        | jq -r '.data' | base64 -d >"$OUT/$1.png" 2>/dev/null
    if ! result=$("$PNG_CHECK" "$OUT/$1.png" "$2" 2>&1); then
        fail "screenshot $1 ($2 px): $result"
    else
        pass "screenshot $1 ($2 px): $OUT/$1.png$cut, $result"
    fi
}
shot desktop 1280

# --- sortable tables: WebDriver clicks on the headers ----------------------------------------
# READ_JS TABLE COLUMN PHASE: reads the rows' order and the column's keys. PHASE "before": the
# table's order before its first click is kept (in the page's window.__browserCheck); "first"
# (after one click): kept too, returns the number of distinct keys; "second" (after the next
# click): returns what is wrong ("" when nothing), and its order is the next column's before.
READ_JS=$(printf '%s' '
const [table, col, phase] = arguments;
const rows = Array.from(table.tBodies.length ? table.tBodies[0].rows : Array.from(table.rows).slice(1));
const keys = rows.map(r => { const c = r.cells[col]; if (!c) return ""; return c.hasAttribute("data-sort") ? c.getAttribute("data-sort") : c.textContent.trim(); });
const order = rows.map(r => r.textContent.replace(/\s+/g, " ").trim()).join("\u0001");
const nums = keys.filter(k => k !== "").map(k => parseFloat(k.replace(/,/g, "")));
const numeric = nums.length > 0 && nums.every(Number.isFinite);
const ks = keys.filter(k => k !== "").map(k => numeric ? parseFloat(k.replace(/,/g, "")) : k);
const cmp = (a, b) => numeric ? a - b : String(a).localeCompare(String(b), undefined, {numeric: true, sensitivity: "base"});
let up = true, down = true;
for (let i = 1; i < ks.length; i++) { const c = cmp(ks[i - 1], ks[i]); if (c > 0) up = false; if (c < 0) down = false; }
const reading = {order: order, sorted: up || down, keys: keys};
const seen = window.__browserCheck || (window.__browserCheck = new Map());
if (phase === "before") { table.scrollIntoView({block: "center"}); seen.set(table, {before: order}); return 0; }
const st = seen.get(table);
if (phase === "first") {
  st.first = reading;
  const distinct = new Set(keys).size;
  if (distinct < 2) st.before = order;
  return distinct;
}
const a = st.before, b = st.first, c = reading;
st.before = c.order;
if (a === b.order && b.order === c.order) return "two clicks left the rows as they were";
if (!b.sorted && !c.sorted) return "the column is sorted after neither click (after the first: " + b.keys.slice(0, 6).join(", ") + ")";
return "";' | jq -Rsc .)
# Every header cell of every table.sortable (its last header row, else its first row): the
# table, the cell (WebDriver element references), its column and a name for messages.
heads=$(js '
const out = [];
document.querySelectorAll("table.sortable").forEach((t, i) => {
  const s = t.closest("section[id]");
  const name = (t.id ? "#" + t.id : "table " + (i + 1)) + (s ? " in section " + s.id : "");
  const head = t.tHead && t.tHead.rows.length ? t.tHead.rows[t.tHead.rows.length - 1] : t.rows[0];
  if (!head) { out.push({table: t, cell: null, col: -1, name: name, label: ""}); return; }
  Array.from(head.cells).forEach(c => out.push({table: t, cell: c, col: c.cellIndex, name: name, label: c.textContent.trim()}));
});
return out;') || heads='[]'
ntables=$(js 'return document.querySelectorAll("table.sortable").length') || ntables=0
if [ "$ntables" -eq 0 ]; then
    pass "sortable: no table.sortable in the page"
else
    sort_bad=""
    sorted_cols=0
    skipped=0
    lines=$(printf '%s\n' "$heads" | jq -r '.[] | [(.table | tojson), (.cell | if . then to_entries[0].value else "" end),
        .col, "\(.name), column \"\(.label)\""] | @tsv')
    tab=$(printf '\t')
    while IFS=$tab read -r table ref col where; do
        [ -n "$table" ] || continue
        if [ -z "$ref" ]; then
            sort_bad="$sort_bad; ${where%, column*}: no header row to click"
            continue
        fi
        # Per column: click, read, click, read; the table's order before its first click once.
        if [ "$table" != "${last_table:-}" ]; then
            jsq "$READ_JS" "[$table,$col,\"before\"]" >/dev/null
            last_table=$table
        fi
        if ! click "$ref"; then
            sort_bad="$sort_bad; $where: WebDriver cannot click its header"
            continue
        fi
        distinct=$(jsq "$READ_JS" "[$table,$col,\"first\"]") || distinct=0
        if [ "$distinct" -lt 2 ]; then
            skipped=$((skipped + 1))
            continue
        fi
        click "$ref"
        verdict=$(jsq "$READ_JS" "[$table,$col,\"second\"]")
        if [ "$verdict" != '""' ]; then
            sort_bad="$sort_bad; $where: $(printf '%s\n' "$verdict" | jq -r .)"
        else
            sorted_cols=$((sorted_cols + 1))
        fi
    done <<LINES
$lines
LINES
    if [ -n "$sort_bad" ]; then
        fail "sortable: ${sort_bad#; }"
    else
        pass "sortable: $ntables tables, $sorted_cols columns sorted by clicks on their headers ($skipped with fewer than 2 distinct values skipped)"
    fi
fi


# --- the phone ------------------------------------------------------------------------------
viewport 390 844 true || broken "cannot set the phone viewport"
wide=$(js 'const w = document.documentElement.clientWidth, s = document.documentElement.scrollWidth;
    const culprits = [];
    if (s > w + 1) document.querySelectorAll("body *").forEach(el => {
      const r = el.getBoundingClientRect();
      if (r.right > w + 1 && !(el.parentElement && el.parentElement.getBoundingClientRect().right > w + 1) && culprits.length < 5)
        culprits.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && typeof el.className === "string" ? "." + el.className.split(" ")[0] : "") + " (" + Math.round(r.right) + " px)");
    });
    return {width: w, scroll: s, culprits: culprits}') || wide='{"width":0,"scroll":0,"culprits":[]}'
if [ "$(printf "%s\n" "$wide" | jq '.scroll > .width + 1')" = true ]; then
    fail "phone: the page is $(printf "%s\n" "$wide" | jq .scroll) px wide on a $(printf "%s\n" "$wide" | jq .width) px screen (sticking out: $(printf "%s\n" "$wide" | jq -r '.culprits | join(", ")'))"
else
    pass "phone: nothing wider than the $(printf "%s\n" "$wide" | jq .width) px screen"
fi
check_svg "390 px"
shot phone 390

# --- the browser's logs, from everything above ------------------------------------------------
log browser >>"$WORK/log.browser"
log performance >>"$WORK/log.performance"
errors=$(jq -rs 'add | map(select(.level == "SEVERE")) | map(.message) | join("\n")' "$WORK/log.browser")
if [ -n "$errors" ]; then
    fail "console: $(echo "$errors" | wc -l) errors: $(echo "$errors" | head -n 5 | tr '\n' '|' | sed 's/|$//; s/|/ | /g')"
else
    warnings=$(jq -s 'add | map(select(.level == "WARNING")) | length' "$WORK/log.browser")
    pass "console: no errors ($warnings warnings)"
fi

# Requests: every one the browser started for the page (performance log), and what the page
# itself saw (resource timing); only the file itself and inline data may appear.
requests=$(jq -rs --arg url "$URL" 'add | map(.message | fromjson | .message
        | select(.method == "Network.requestWillBeSent") | .params.request.url)
    | map(select(. != $url and (startswith("data:") | not) and (startswith("blob:") | not) and (startswith("about:") | not)))
    | unique | join(" ")' "$WORK/log.performance")
resources=$(js 'return performance.getEntriesByType("resource").map(e => e.name)
    .filter(u => !/^(data|blob|about):/.test(u) && u !== location.href)' | jq -r 'join(" ")')
if [ -n "$requests$resources" ]; then
    fail "network: the page asks for what is not in the file: $(echo "$requests $resources" | tr ' ' '\n' | sort -u | grep . | head -n 5 | tr '\n' ' ')"
else
    pass "network: no request beyond the file itself"
fi

echo "browser_check: $PASSED passed, $FAILED failed ($FILE)"
[ "$FAILED" -eq 0 ]
