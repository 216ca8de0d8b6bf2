# beyond the papers on the mesh: uniform traffic on a 2-D mesh over OpenSM's
# own engines' tables (read back from the switches) next to XY routing; a
# panel per VL count. A black cross on a curve's last point: the next load
# step closed a credit loop and was stopped (that run's own accepted
# traffic, what it delivered before the loop, is 0 at 1 VL and was drawn
# left of the curve's end, which read as a loop at low load).
# Every curve's SLs are a hash of source and destination (VL = SL mod VLs).
# gnuplot -e "csv='...'; png='...'; fabric='mesh-16x16'; schemes='xy opensm-dor ...'; vlss='1 2 4'" beyond-mesh.gp
n = words(vlss)
set terminal png enhanced size 420 * n + 80,480 font "DejaVuSans,9"
set output png
set multiplot layout 1,n title sprintf("%s, uniform traffic: XY routing vs OpenSM's engines", fabric) font "DejaVuSans,11"
set xlabel "accepted traffic (bytes/ns/node)"
set ylabel "average message latency (ns)"
set logscale y
set format y "10^{%L}"
set yrange [*:3e6]  # room for the key above the curves; the bottom follows the data (a --quick 4x4 mesh runs below 1000 ns)
set xtics rotate by -30
set grid
set key top left box opaque font "DejaVuSans,8" spacing 0.9
sel(s, v) = sprintf("< awk -F, '$2 == \"%s\" && $4 == %s && $15 == 0 {print $7, $8}' '%s'", s, v, csv)
loops(v) = sprintf("< awk -F, 'NR > 1 && $4 == %s {if ($15 == 1) loop[$2] = 1; else if (!($2 in at) || $5 + 0 > at[$2]) {at[$2] = $5 + 0; x[$2] = $7; y[$2] = $8}} END {for (s in loop) if (s in x) print x[s], y[s]; print \"NaN NaN\"}' '%s'", v, csv)
label(s) = s eq "xy" ? "XY" : "OpenSM " . substr(s, 8, strlen(s))
col(i) = word("#c0392b #1f5fbf #1e8449 #e67e22 #7d3c98 #17a589", i)
do for [v in vlss] {
  set title sprintf("%s VL%s", v, v eq "1" ? "" : "s")
  plot for [i = 1:words(schemes)] sel(word(schemes, i), v) using 1:2 with linespoints lc rgb col(i) pt i + 3 ps 0.6 lw 1.3 \
    title label(word(schemes, i)), \
    loops(v) using 1:2 with points lc rgb "black" pt 2 ps 1.5 lw 2 title "next load: credit loop, run stopped"
}
unset multiplot
