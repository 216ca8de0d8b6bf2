# seed 002 (Fig. 17): speedup of cyclic multicast over OpenSM's default tree
# (and over unicast) vs group size, a curve per source count, at one size.
# gnuplot -e "csv='...'; png='...'; sources='1 40% 70% 100%'; groups='...'; msg='131072'; buf4=''; msg4=''" seed002-speedup.gp
# buf4: the same cells with 4-packet buffers (panel c), msg4 its size.
# schemes: those in the CSV; without opensm (no ibsim/OpenSM) only (b).
if (!exists("buf4")) buf4 = ""
if (!exists("schemes")) schemes = "cyclic opensm unicast"
osm = strstrt(schemes, "opensm") > 0
np = osm ? (strlen(buf4) ? 3 : 2) : 1
set terminal png enhanced size 550 * np,450 font "DejaVuSans,9"
set output png
set multiplot layout 1,np title sprintf("FT(8,3): speedup of cyclic multicast, %d-byte messages%s", msg + 0, \
  np == 3 ? sprintf("; (c) %d-byte", msg4 + 0) : "") font "DejaVuSans,11"
set xlabel "multicast group size (% of the 128 nodes)"
set xrange [0:110]
set xtics (10, 40, 70, 100)
set grid
set key top right box opaque font "DejaVuSans,9"
set offsets 0, 0, graph 0.08, 0  # a curve of speedups all 1 (--quick's panel c) sat on the top frame
# speedup rows: group(%) ratio, for one source count, from completion times
spf(other, s, m, f) = sprintf("< awk -F, -v o=%s -v s='%s' -v m=%s 'NR > 1 && $2 == s && $4 == m { g = $3; sub(/%%/, \"\", g); t[$1, g] = $5; gs[g] = 1 } END { for (g in gs) if (t[\"cyclic\", g] > 0 && t[o, g] > 0) print g, t[o, g] / t[\"cyclic\", g] }' '%s' | sort -n", other, s, m, f)
sp(other, s) = spf(other, s, msg, csv)
col(i) = word("#1f5fbf #c0392b #1e8449 #7d3c98", i)
if (osm) {
set ylabel "completion time OpenSM / cyclic"
set yrange [0:*]
set title "(a) over OpenSM's default tree"
plot for [i = 1:words(sources)] sp("opensm", word(sources, i)) using 1:2 with linespoints lc rgb col(i) pt 7 lw 1.3 \
  title sprintf("%s source%s", word(sources, i), word(sources, i) eq "1" ? "" : "s"), 1 with lines lc rgb "#999999" dt 2 notitle
}
set ylabel "completion time unicast / cyclic"
set logscale y
set yrange [*:*]
set title (osm ? "(b) over unicast" : "over unicast (no OpenSM rows: run without ibsim/OpenSM)")
plot for [i = 1:words(sources)] sp("unicast", word(sources, i)) using 1:2 with linespoints lc rgb col(i) pt 7 lw 1.3 \
  title sprintf("%s source%s", word(sources, i), word(sources, i) eq "1" ? "" : "s"), 1 with lines lc rgb "#999999" dt 2 notitle
if (np == 3) {
  unset logscale y
  set yrange [0:*]
  set ylabel "completion time OpenSM / cyclic"
  set title sprintf("(c) over OpenSM, 4-packet buffers, %d bytes", msg4 + 0)
  plot for [i = 1:words(sources)] spf("opensm", word(sources, i), msg4, buf4) using 1:2 with linespoints lc rgb col(i) pt 7 lw 1.3 \
    title sprintf("%s source%s", word(sources, i), word(sources, i) eq "1" ? "" : "s"), 1 with lines lc rgb "#999999" dt 2 notitle
}
unset multiplot
