# seed 002 (Fig. 17): speedup of cyclic multicast over OpenSM's default tree
# (and over unicast) vs group size, a curve per source count, at one size.
# gnuplot -e "csv='...'; png='...'; sources='1 40% 70% 100%'; groups='...'; msg='131072'" seed002-speedup.gp
set terminal pngcairo size 1100,450 font "Sans,10"
set output png
set multiplot layout 1,2 title sprintf("FT(8,3): speedup of cyclic multicast, %d-byte messages", msg + 0) font "Sans,12"
set xlabel "multicast group size (% of the 128 nodes)"
set xrange [0:110]
set xtics (10, 40, 70, 100)
set grid
set key top right box opaque font "Sans,9"
# speedup rows: group(%) ratio, for one source count, from completion times
sp(other, s) = sprintf("< awk -F, -v o=%s -v s='%s' -v m=%s 'NR > 1 && $2 == s && $4 == m { g = $3; sub(/%%/, \"\", g); t[$1, g] = $5; gs[g] = 1 } END { for (g in gs) if (t[\"cyclic\", g] > 0 && t[o, g] > 0) print g, t[o, g] / t[\"cyclic\", g] }' '%s' | sort -n", other, s, msg, csv)
col(i) = word("#1f5fbf #c0392b #1e8449 #7d3c98", i)
set ylabel "completion time OpenSM / cyclic"
set title "(a) over OpenSM's default tree"
plot for [i = 1:words(sources)] sp("opensm", word(sources, i)) using 1:2 with linespoints lc rgb col(i) pt 7 lw 1.3 \
  title sprintf("%s source%s", word(sources, i), word(sources, i) eq "1" ? "" : "s"), 1 with lines lc rgb "#999999" dt 2 notitle
set ylabel "completion time unicast / cyclic"
set title "(b) over unicast"
plot for [i = 1:words(sources)] sp("unicast", word(sources, i)) using 1:2 with linespoints lc rgb col(i) pt 7 lw 1.3 \
  title sprintf("%s source%s", word(sources, i), word(sources, i) eq "1" ? "" : "s"), 1 with lines lc rgb "#999999" dt 2 notitle
unset multiplot
