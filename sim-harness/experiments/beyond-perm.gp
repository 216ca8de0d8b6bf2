# beyond the papers, permutation traffic: saturation throughput (the most a
# curve accepted) per traffic pattern and scheme on a fat-tree or mesh, ibunion's
# engines next to OpenSM's own (tables read back from the switches); a panel
# per VL count. dat.'.'.VL.'.dat' rows: traffic, then one value per scheme.
# gnuplot -e "dat='.../perm'; png='...'; fabric='FT(8,3)'; ymax='0.2'; schemes='slid mlid ... opensm-ftree ...'; vlss='1 4'" beyond-perm.gp
# Other panels (beyond-degraded: rows are fabrics, a panel per traffic and
# VL count): vlss names the dat files' suffixes, titles='"a b" "c d"' the
# panels, one quoted title per suffix.
n = words(vlss)
rows = n > 3 ? 2 : 1
cols = (n + rows - 1) / rows
set terminal png enhanced size 560 * cols + 80,480 * rows font "DejaVuSans,9"
set output png
set multiplot layout rows,cols title sprintf(exists("titles") ? "%s: ibunion engines vs OpenSM's engines" : \
  "%s, saturation throughput by traffic: ibunion engines vs OpenSM's engines", fabric) \
  font "DejaVuSans,11"
set ylabel "saturation throughput (bytes/ns/node)"
set yrange [0:ymax + 0]
set grid ytics
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics scale 0
set key below font "DejaVuSans,8" maxrows 2
label(s) = s eq "slid" ? "SLID" : (s eq "mlid" ? "MLID" : (s eq "mlid-paper" ? "MLID paper tables" : \
  (s eq "xy" ? "XY" : "OpenSM " . substr(s, 8, strlen(s)))))
col(i) = word("#555555 #c0392b #e67e22 #1f5fbf #1e8449 #7d3c98 #17a589", i)
do for [panel = 1:n] {
  v = word(vlss, panel)
  set title exists("titles") ? word(titles, panel) : sprintf("%s VL%s", v, v eq "1" ? "" : "s")
  plot for [i = 1:words(schemes)] sprintf("%s.%s.dat", dat, v) using i + 1:xtic(1) lc rgb col(i) title label(word(schemes, i))
}
unset multiplot
