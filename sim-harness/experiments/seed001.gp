# seed 001 (Figs. 12-15): average message latency vs accepted traffic,
# (a) uniform, (b) 10% centric; one curve per scheme and VL count (colour:
# VLs; points: scheme). Terminal png (libgd): small files, no dashes.
# gnuplot -e "csv='...'; png='...'; title='FT(8,3)'; note=''; schemes='slid mlid'; vlss='1 2 4'" seed001.gp
set terminal png enhanced size 1200,520 font "DejaVuSans,9"
set output png
set datafile separator whitespace
set multiplot layout 1,2 title title . (strlen(note) ? "\n{/*0.8 " . note . "}" : "") font "DejaVuSans,11"
set xlabel "accepted traffic (bytes/ns/node)"
set ylabel "average message latency (ns)"
set logscale y
set yrange [500:3e5]
set grid
set key top left box opaque font "DejaVuSans,8" spacing 0.9
sel(s, t, v) = sprintf("< awk -F, '$2 == \"%s\" && $3 == \"%s\" && $4 == %s {print $7, $8}' '%s'", s, t, v, csv)
label(s) = s eq "slid" ? "SLID" : (s eq "mlid" ? "MLID" : (s eq "mlid-paper" ? "MLID paper tables" : s))
vlcolor(v) = v == 1 ? "#1f5fbf" : (v == 2 ? "#c0392b" : "#1e8449")
dt(s) = s eq "slid" ? 2 : (s eq "mlid" ? 1 : 4)
pt(s) = s eq "slid" ? 4 : (s eq "mlid" ? 7 : 9)
lwid(s) = s eq "mlid" ? 2 : 1
do for [t in "uniform centric:0.1"] {
  set title (t eq "uniform" ? "(a) uniform traffic" : "(b) 10% centric traffic")
  plot for [v in vlss] for [s in schemes] sel(s, t, v) using 1:2 with linespoints \
    lc rgb vlcolor(v + 0) dt dt(s) pt pt(s) ps 0.8 lw lwid(s) title sprintf("%s, %s VL%s", label(s), v, v eq "1" ? "" : "s")
}
unset multiplot
