#!/bin/sh
# condition-print.sh - a condition report to hand over: the text at 80 and
# 42 columns (the visit, the customer, the note, each medium with its hash,
# each hotspot by number with its place, text and links; no line wider than
# asked, a CJK caption counted two columns a character), and the A4 PDF
# (checked with pdftotext and pdfimages): the text, then a page per photo
# and panorama with its hotspots drawn as numbered marks where they lie
# (their placement measured from the PDF, against the picture's
# proportions), a JPEG embedded byte for byte, a PNG as an image; a 3D
# capture without a page; a copy that changed or a JPEG of no readable size
# refused, with no file left.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/png.sh"
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# widest FILE: the widest line in display columns (wide characters two)
widest() {
	python3 - "$1" <<'EOF'
import sys, unicodedata
w = lambda s: sum(2 if unicodedata.east_asian_width(c) in 'WF' else 0 if unicodedata.combining(c) else 1 for c in s)
print(max(w(l) for l in open(sys.argv[1], encoding='utf-8').read().split('\n')))
EOF
}
# marks PDF PAGE: "n x y" for each mark number on the page (its box's centre)
marks() {
	pdftotext -f "$2" -l "$2" -bbox "$1" - | python3 -c '
import re, sys
for m in re.finditer(r"<word xMin=\"([\d.]+)\" yMin=\"([\d.]+)\" xMax=\"([\d.]+)\" yMax=\"([\d.]+)\">(\d+)</word>", sys.stdin.read()):
    x0, y0, x1, y1, n = m.groups()
    print(n, (float(x0) + float(x1)) / 2, (float(y0) + float(y1)) / 2)'
}
# ratio MARKS A B C: (xB - xA) / (yC - yA), from marks' output
ratio() {
	printf '%s\n' "$1" | python3 -c '
import sys
p = {l.split()[0]: tuple(map(float, l.split()[1:])) for l in sys.stdin if l.strip()}
a, b, c = sys.argv[1:4]
print("%.3f" % ((p[b][0] - p[a][0]) / (p[c][1] - p[a][1])))' "$2" "$3" "$4"
}

export FRONTDESK_NOW="2026-12-01 09:00"
fd init >/dev/null
fd customer add --name "Lee Park" >/dev/null
fd resource add --name "Bay 1" --kind bay >/dev/null
fd book --customer "Lee Park" --start "2026-12-01 10:00" --length 1:00 >/dev/null
fd item add --job 1 --description "Door repair" --price 120.00 >/dev/null
fd condition add --visit 1 --note "odometer 41200" >/dev/null
png "$TMP/bumper.png" 200 100 200 40 40
png "$TMP/pano.png" 400 200 40 40 200
# a real JPEG, made by poppler's pdftoppm (libjpeg) from a PDF frontdesk prints
fd condition print 1 --format pdf --output "$TMP/base.pdf" >/dev/null
pdftoppm -jpeg -r 30 -singlefile "$TMP/base.pdf" "$TMP/door"
ok "a JPEG to add" test -s "$TMP/door.jpg"
head -c 3000 /dev/urandom > "$TMP/scan.bin"
fd condition media add 1 "$TMP/bumper.png" --caption "前保险杠 front bumper, the driver's side, seen from the left" >/dev/null # 1
fd condition media add 1 "$TMP/pano.png" --kind panorama >/dev/null                    # 2
fd condition media add 1 "$TMP/door.jpg" --caption "the door" >/dev/null               # 3
fd condition media add 1 "$TMP/scan.bin" --kind model >/dev/null                       # 4
fd condition hotspot add --media 1 --kind damage --text "scratch" --at 0.25,0.25 --item 1 >/dev/null
fd condition hotspot add --media 1 --kind damage --text "dent" --at 0.75,0.25 --resource 1 >/dev/null
fd condition hotspot add --media 1 --kind note --text "chip" --at 0.25,0.75 >/dev/null
fd condition hotspot add --media 2 --kind meter --text "meter by the window" --at 90,45 >/dev/null
fd condition hotspot add --media 2 --kind device --text "boiler" --at -90,-45 >/dev/null
fd condition hotspot add --media 3 --kind damage --text "handle loose" --at 0.5,0.5 >/dev/null
fd condition hotspot add --media 4 --kind device --text "valve" --at 1.5,-2,0.25 >/dev/null

# --- the text
fd condition print 1 > "$TMP/r80.txt"
out=$(cat "$TMP/r80.txt")
like "the report and its stage" "$out" "Condition report 1, before the work"
like "the customer" "$out" "Customer: Lee Park"
like "the note" "$out" "odometer 41200"
like "each medium with its hash" "$out" "SHA-256 $(db "SELECT sha256 FROM media_item WHERE id = 3")"
like "a hotspot by number, kind, medium and place" "$out" "#1 damage on M1 at x 0.25, y 0.25"
like "a panorama's place in degrees" "$out" "#4 meter on M2 at yaw 90, pitch 45"
like "a 3D capture's point" "$out" "#7 device on M4 at x 1.5, y -2, z 0.25"
like "a link to the work" "$out" "the work: line item 1"
like "a link to a resource" "$out" "resource 1"
is "80 columns at most" "$(widest "$TMP/r80.txt")" 80
fd condition print 1 --width 42 > "$TMP/r42.txt"
ok "42 columns: no line wider (the CJK caption counted two a character)" test "$(widest "$TMP/r42.txt")" -le 42
like "42 columns: the caption is all there" "$(tr -d '\n ' < "$TMP/r42.txt")" "前保险杠frontbumper,thedriver'sside,seenfromtheleft"
refused "no such report" condition print 9
usage=$(fd condition print 1 --width 60 2>&1); st=$?
is "a width that is not one: usage" "$st" 2
usage=$(fd condition print 1 --format pdf 2>&1); st=$?
is "a PDF without a file: usage" "$st" 2

# --- the PDF
ok "the PDF is written" fd condition print 1 --format pdf --output "$TMP/r.pdf"
is "mode 0600" "$(stat -c %a "$TMP/r.pdf")" 600
is "the text, then a page per photo and panorama (not the 3D capture)" \
	"$(pdfinfo "$TMP/r.pdf" | sed -n 's/^Pages: *//p')" 4
text=$(pdftotext -f 1 -l 1 "$TMP/r.pdf" -)
like "page 1 holds the report's text" "$text" "#6 damage on M3 at x 0.5, y 0.5"
like "... and the hotspots' texts" "$text" "meter by the window"
pdfimages -list "$TMP/r.pdf" > "$TMP/images"
is "three pictures: the PNGs as images, the JPEG as a JPEG, each at its size" \
	"$(awk 'NR > 2 {print $1, $3, $4, $5, $9}' "$TMP/images")" \
	"2 image 200 100 image
3 image 400 200 image
4 image $(python3 -c "
import sys
b = open(sys.argv[1], 'rb').read(); i = 2
while True:
    m, n = b[i + 1], int.from_bytes(b[i + 2:i + 4], 'big')
    if 0xC0 <= m <= 0xCF and m not in (0xC4, 0xC8, 0xCC): print(int.from_bytes(b[i + 7:i + 9], 'big'), int.from_bytes(b[i + 5:i + 7], 'big')); break
    i += 2 + n" "$TMP/door.jpg") jpeg"
mkdir "$TMP/x"
pdfimages -j -f 4 -l 4 "$TMP/r.pdf" "$TMP/x/p"
is "the photo is in the PDF byte for byte" "$(sha256sum < "$TMP/x/p-000.jpg")" "$(sha256sum < "$TMP/door.jpg")"
like "each picture's page names it" "$(pdftotext -f 2 -l 2 "$TMP/r.pdf" -)" "M1 photo: 前保险杠 front bumper"
# the marks where they lie: on the 2:1 photo, #1 (0.25, 0.25), #2 (0.75,
# 0.25) and #3 (0.25, 0.75): #2 right of #1 by half the picture's width, #3
# below it by half its height, so the two distances are as 2 to 1
m2=$(marks "$TMP/r.pdf" 2)
is "the photo's three marks are drawn, numbered" "$(printf '%s\n' "$m2" | cut -d' ' -f1 | sort | tr '\n' ' ')" "1 2 3 "
is "placed as the picture's proportions say (2:1)" "$(ratio "$m2" 1 2 3)" 2.000
# the panorama, in its own frame (yaw 0 at the middle column): yaw 90 is
# three quarters across, pitch 45 a quarter down; yaw -90, pitch -45 a
# quarter across, three quarters down
m3=$(marks "$TMP/r.pdf" 3)
is "the panorama's marks are drawn" "$(printf '%s\n' "$m3" | cut -d' ' -f1 | sort | tr '\n' ' ')" "4 5 "
is "yaw and pitch placed on the equirectangular image" "$(ratio "$m3" 5 4 4)" "-2.000"
is "the door's mark" "$(marks "$TMP/r.pdf" 4 | cut -d' ' -f1)" 6

# --- refusals: no file is left
copy="$(dirname "$FRONTDESK_DB")/media/$(db "SELECT local_path FROM media_item WHERE id = 1")"
chmod u+w "$copy"; printf 'x' >> "$copy"
refused "a copy that changed is not printed" condition print 1 --format pdf --output "$TMP/bad.pdf"
like "... naming the medium" "$(cat "$TMP/err")" "medium 1"
ok "... and no file is left" test ! -e "$TMP/bad.pdf"
png "$copy" 200 100 200 40 40
fd condition add --visit 1 --stage after >/dev/null
printf '\377\330\377\340fake-jpeg-body' > "$TMP/fake.jpg"
fd condition media add 2 "$TMP/fake.jpg" >/dev/null
refused "a JPEG of no readable size is not printed" condition print 2 --format pdf --output "$TMP/bad.pdf"
ok "... no file" test ! -e "$TMP/bad.pdf"
ok "its text prints" fd condition print 2

# --- finalize: the report made final with its printed PDF and its hash
media="$(dirname "$FRONTDESK_DB")/media"
files=$(ls -A "$media" | sort)
refused "a report that cannot be printed is not made final" condition finalize 2
is "... it stays open" "$(db "SELECT status FROM condition_report WHERE id = 2")" open
is "... and no file is left" "$(ls -A "$media" | sort)" "$files"
fd --json condition finalize 1 > "$TMP/final.json"
is "made final" "$(jget 'd["status"]' < "$TMP/final.json")" final
doc="$media/$(jget 'd["document"]["path"]' < "$TMP/final.json")"
is "its document is kept beside the database, with its SHA-256" \
	"$(sha256sum < "$doc" | cut -d' ' -f1)" "$(jget 'd["document"]["sha256"]' < "$TMP/final.json")"
is "... and its size" "$(wc -c < "$doc" | tr -d ' ')" "$(jget 'd["document"]["size"]' < "$TMP/final.json")"
like "the document is the printed report" "$(pdftotext "$doc" -)" "odometer 41200"
mkdir "$TMP/y" && pdfimages -j -f 4 -l 4 "$doc" "$TMP/y/p"
is "the photo is in it byte for byte" "$(sha256sum < "$TMP/y/p-000.jpg")" "$(sha256sum < "$TMP/door.jpg")"
is "only the owner reads it" "$(stat -c %a "$doc")" 600
like "show names it" "$(fd condition show 1)" "$(jget 'd["document"]["sha256"]' < "$TMP/final.json")"
refused "a final report takes no medium" condition media add 1 "$TMP/pano.png"
refused "... no hotspot" condition hotspot add --media 1 --kind note --text "late" --at 0.5,0.5
refused "... and is not made final again" condition finalize 1
like "... saying so" "$(cat "$TMP/err")" "final already"
ok "check finds it whole" fd check
cp "$doc" "$TMP/doc.keep"
chmod u+w "$doc"; printf 'x' >> "$doc"
like "check sees a document changed" "$(fd check 2>&1)" "condition-document-changed: the document of condition report 1 does not match its SHA-256"
rm -f "$doc"
like "... or missing" "$(fd check 2>&1)" "condition-document-missing: the document of condition report 1 is missing"
cp "$TMP/doc.keep" "$doc"
ok "whole again" fd check
done_testing
