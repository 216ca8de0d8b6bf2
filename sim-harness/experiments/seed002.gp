# seed 002 (Figs. 8-16): multicast completion time vs message size on
# FT(8,3) for one source count, a panel per group size; cyclic multicast,
# OpenSM's default tree (minhop's MFTs read back) and unicast.
# gnuplot -e "csv='...'; png='...'; src='40%'; groups='10% 40% 70% 100%'; schemes='cyclic opensm unicast'" seed002.gp
# schemes: those in the CSV (a run without ibsim/OpenSM has no opensm rows).
if (!exists("schemes")) schemes = "cyclic opensm unicast"
n = words(groups)
set terminal png enhanced size (n > 2 ? 1300 : 900),(n > 2 ? 900 : 450) font "DejaVuSans,9"
set output png
set multiplot layout (n > 2 ? 2 : 1),(n > 1 ? 2 : 1) title sprintf("FT(8,3): %s source%s, completion time of one multicast per source", src eq "1" ? "one" : src, src eq "1" ? "" : "s") font "DejaVuSans,11"
set logscale xy
set xrange [24:180000]  # 32 B to 128 KB, the sizes run (gnuplot widened it to 512K)
set xtics ("32" 32, "128" 128, "512" 512, "2K" 2048, "8K" 8192, "32K" 32768, "128K" 131072)
set format y "10^{%L}"
set xlabel "message size (bytes)"
set ylabel "completion time (ns)"
set grid
set key top left box opaque font "DejaVuSans,9"
sel(s, g) = sprintf("< awk -F, '$1 == \"%s\" && $2 == \"%s\" && $3 == \"%s\" {print $4, $5}' '%s'", s, src, g, csv)
label(s) = s eq "cyclic" ? "cyclic multicast" : (s eq "opensm" ? "OpenSM default tree" : "unicast")
col(s) = s eq "cyclic" ? "#c0392b" : (s eq "opensm" ? "#1f5fbf" : "#555555")
# cyclic as a larger open circle: with one source it equals OpenSM's tree
# to the nanosecond and was hidden under it.
pt(s) = s eq "cyclic" ? 6 : (s eq "opensm" ? 5 : 4)
ps(s) = s eq "cyclic" ? 1.3 : 0.7
do for [g in groups] {
  set title sprintf("%s-to-%s multicast", src eq "100%" ? "all" : src, g eq "100%" ? "all" : g)
  plot for [s in schemes] sel(s, g) using 1:2 with linespoints lc rgb col(s) pt pt(s) ps ps(s) lw 1.3 title label(s)
}
unset multiplot
