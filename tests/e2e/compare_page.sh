#!/usr/bin/env bash
# timing-free: compare's page and PNG of the fixture runs, rendered by Chromium (no server, no load)
# harness compare --format html|png and --chart, on the fixture runs of
# tests/fixtures/compare_fixture.c (compare_slow: a's p99 x6 at both
# rates, CPU unchanged; compare_fast: faster). The page is self-contained
# (no script, nothing external), carries the deltas chart and the
# markdown's words; the PNG is rsvg-convert's; the markdown links the
# chart; headless Chromium renders the page (a screenshot, the chart in
# the DOM, no console error). COMPARE_PNG=FILE keeps the screenshot.
. "$(dirname "$0")/../lib.sh"

R=$T/runs
"$HELPERS/compare_fixture" "$R" >/dev/null || fail "compare_fixture"

# --- html -------------------------------------------------------------------
expect_exit "html: the verdict's exit code (regression)" 1 "$HARNESS" compare compare_base \
	compare_slow --runs-dir "$R" --impl a --format html
P=$T/out
check "html: one page, the deltas chart first" bash -c "head -1 '$P' | grep -qx '<!DOCTYPE html>' &&
	[ \$(grep -c '<svg' '$P') = 1 ] && grep -q 'data-chart=\"compare_deltas\"' '$P'"
check "html: nothing external, no script" bash -c "! grep -Eq '<script|src=|href=|@import' '$P'"
cmp_num "html: p99 cells marked regression (2 rates)" \
	"$(grep -c 'data-verdict="regression" cx=' "$P")" "==" 2
cmp_num "html: CPU cells marked no change (2 rates)" \
	"$(grep -c 'data-verdict="no change" cx=' "$P")" "==" 2
cmp_num "html: an interval whisker per cell" "$(grep -c 'data-whisker=' "$P")" "==" 4
check "html: the implementation's verdict on the chart" \
	grep -q 'class="impl-verdict" data-verdict="regression"' "$P"
# the words are the markdown's: its verdict heading, both tables, the result
check "html: the markdown's words" bash -c "grep -q '<h3><code>a</code>: <strong>regression</strong></h3>' '$P' &&
	[ \$(grep -c '<table>' '$P') = 2 ] && grep -q '<strong>Result: regression</strong> (exit 1)' '$P'"
bad=$(grep -o 'class="tick"[^>]*>[^<]*<' "$P" | sed 's/.*>\(.*\)</\1/' | grep -Evx -- '-?[0-9]+(\.[0-9]{1,3})?k?' | head -3)
if [ -z "$bad" ]; then ok "html: plain tick labels"; else fail "html: tick labels '$bad'"; fi
"$HARNESS" compare compare_base compare_fast --runs-dir "$R" --judge-unpaired --format html \
	-o "$T/fast.html" >/dev/null 2>&1
cmp_num "html -o FILE: an improvement's cells" "$(grep -c 'data-verdict="improvement" cx=' "$T/fast.html")" ">=" 1

# --- png and --chart --------------------------------------------------------
"$HARNESS" compare compare_base compare_slow --runs-dir "$R" --impl a --format png -o "$T/d.png" 2>"$T/err"
check "png -o FILE: a PNG ($(head -c 200 "$T/err"))" is_png "$T/d.png"
"$HARNESS" compare compare_base compare_slow --runs-dir "$R" --impl a --format png >"$T/stdout.png" 2>/dev/null
check "png to standard output: the same bytes" cmp -s "$T/d.png" "$T/stdout.png"
expect_exit "md --chart: the exit code unchanged" 1 "$HARNESS" compare compare_base compare_slow \
	--runs-dir "$R" --impl a --chart "$T/c.png"
check "md --chart: the chart written" is_png "$T/c.png"
check "md --chart: the headline under the heading" bash -c "sed -n 3p '$T/out' | grep -q '^\*\*Regression: a: p99 +'"
check "md --chart: linked under the headline" bash -c "sed -n 5p '$T/out' | grep -qF '($T/c.png)' &&
	sed -n 5p '$T/out' | grep -q '^!\['"
"$HARNESS" compare compare_base compare_slow --runs-dir "$R" --impl a --chart "$T/c.svg" >/dev/null 2>&1
check "--chart FILE.svg: the SVG itself" grep -q 'data-chart="compare_deltas"' "$T/c.svg"
expect_exit "png: rsvg-convert missing is an environment error" 3 env PATH=/nonexistent \
	"$HARNESS" compare compare_base compare_slow --runs-dir "$R" --impl a --format png -o "$T/x.png"
check "png: the message names the package" grep -q 'librsvg2-bin' "$T/err"
expect_exit "bad format names the four" 2 "$HARNESS" compare compare_base compare_slow \
	--runs-dir "$R" --format pdf
check "bad format: one line naming them" grep -q 'expected md, json, html or png' "$T/err"

# --- headless Chromium ------------------------------------------------------
chromium_ready "compare's page" || exit 0
"$HARNESS" compare compare_base compare_slow --runs-dir "$R" --impl a --format html \
	-o "$T/page.html" >/dev/null 2>&1
chrome "file://$T/page.html" --dump-dom >"$T/dom.html" 2>"$T/chrome.err"
check "rendered DOM: the deltas chart" grep -q '<svg[^>]*data-chart="compare_deltas"' "$T/dom.html"
if grep -q 'CONSOLE' "$T/chrome.err"; then fail "console messages: $(grep CONSOLE "$T/chrome.err" | head -3)"
else ok "no console message or script error"; fi
chrome "file://$T/page.html" --window-size=1100,1600 --screenshot="$T/page.png" >/dev/null 2>&1
check "screenshot is a PNG" is_png "$T/page.png"
cmp_num "screenshot is not blank (bytes)" "$(stat -c %s "$T/page.png" 2>/dev/null || echo 0)" ">" 50000
if [ -n "${COMPARE_PNG:-}" ]; then cp "$T/page.png" "$COMPARE_PNG"; fi
# The first screen (1280 x 800): the title and the headline before the
# chart. COMPARE_FIRST_PNG=FILE keeps it.
chrome "file://$T/page.html" --window-size=1280,800 --screenshot="$T/first.png" >/dev/null 2>&1
check "first-screen screenshot is a PNG" is_png "$T/first.png"
check "rendered DOM: the headline between the title and the chart" bash -c \
	"tr -d '\n' <'$T/dom.html' | grep -q '</h1><p><strong>Regression: a: p99 +[^<]*</strong></p><figure class=\"chart\"'"
if [ -n "${COMPARE_FIRST_PNG:-}" ]; then cp "$T/first.png" "$COMPARE_FIRST_PNG"; fi
