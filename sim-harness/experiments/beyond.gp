# beyond seed 001: uniform traffic on FT(8,3) over OpenSM's own engines'
# tables (read back from the switches) next to mlid/slid; a panel per VL count.
# gnuplot -e "csv='...'; png='...'; schemes='slid mlid ... opensm-ftree ...'; vlss='1 2 4'" beyond.gp
n = words(vlss)
set terminal png enhanced size 420 * n + 80,480 font "DejaVuSans,9"
set output png
set multiplot layout 1,n title "FT(8,3), uniform traffic: ibunion engines vs OpenSM's engines" font "DejaVuSans,11"
set xlabel "accepted traffic (bytes/ns/node)"
set ylabel "average message latency (ns)"
set logscale y
set yrange [500:3e5]
set grid
set key top left box opaque font "DejaVuSans,8" spacing 0.9
sel(s, v) = sprintf("< awk -F, '$2 == \"%s\" && $4 == %s {print $7, $8}' '%s'", s, v, csv)
label(s) = s eq "slid" ? "SLID" : (s eq "mlid" ? "MLID" : (s eq "mlid-paper" ? "MLID paper tables" : "OpenSM " . substr(s, 8, strlen(s))))
dash(i) = i <= 3 ? 1 : 2
col(i) = word("#555555 #c0392b #e67e22 #1f5fbf #1e8449 #7d3c98 #17a589", i)
do for [v in vlss] {
  set title sprintf("%s VL%s", v, v eq "1" ? "" : "s")
  plot for [i = 1:words(schemes)] sel(word(schemes, i), v) using 1:2 with linespoints lc rgb col(i) pt i + 3 ps 0.6 lw 1.3 \
    dt dash(i) title label(word(schemes, i))
}
unset multiplot
