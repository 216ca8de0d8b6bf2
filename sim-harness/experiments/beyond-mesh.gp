# beyond the papers on the mesh: uniform traffic on a 2-D mesh over OpenSM's
# own engines' tables (read back from the switches) next to XY routing; a
# panel per VL count. A point where a credit loop stopped the run is a black
# cross: it delivered what it did before the loop, and its curve ends there.
# Every curve's SLs are a hash of source and destination (VL = SL mod VLs).
# gnuplot -e "csv='...'; png='...'; fabric='mesh-16x16'; schemes='xy opensm-dor ...'; vlss='1 2 4'" beyond-mesh.gp
n = words(vlss)
set terminal png enhanced size 420 * n + 80,480 font "DejaVuSans,9"
set output png
set multiplot layout 1,n title sprintf("%s, uniform traffic: XY routing vs OpenSM's engines", fabric) font "DejaVuSans,11"
set xlabel "accepted traffic (bytes/ns/node)"
set ylabel "average message latency (ns)"
set logscale y
set yrange [1000:3e6]  # the key above the curves
set xtics rotate by -30
set grid
set key top left box opaque font "DejaVuSans,8" spacing 0.9
sel(s, v) = sprintf("< awk -F, '$2 == \"%s\" && $4 == %s && $15 == 0 {print $7, $8}' '%s'", s, v, csv)
loops(v) = sprintf("< awk -F, 'NR > 1 && $4 == %s && $15 == 1 {print $7, $8} END {print \"NaN NaN\"}' '%s'", v, csv)
label(s) = s eq "xy" ? "XY" : "OpenSM " . substr(s, 8, strlen(s))
col(i) = word("#c0392b #1f5fbf #1e8449 #e67e22 #7d3c98 #17a589", i)
do for [v in vlss] {
  set title sprintf("%s VL%s", v, v eq "1" ? "" : "s")
  plot for [i = 1:words(schemes)] sel(word(schemes, i), v) using 1:2 with linespoints lc rgb col(i) pt i + 3 ps 0.6 lw 1.3 \
    title label(word(schemes, i)), \
    loops(v) using 1:2 with points lc rgb "black" pt 2 ps 1.5 lw 2 title "credit loop: run stopped"
}
unset multiplot
