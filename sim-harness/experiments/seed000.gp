# seed 000/004 (Figs. 10-27): completion time vs message size on a 16x16
# mesh for one source/group combination, a panel per VL count; XY
# multicast (the engine's trunk-row trees, and dashed the paper's source
# trees) and unicast, VLs shared, dedicated per direction, or the engine's
# own (a trunk row and an SL per VL).
# gnuplot -e "csv='...'; png='...'; src='40%'; grp='100%'; vlcfgs='1 2-shared ...'" seed000.gp
vls = "1"
if (strstrt(vlcfgs, "2-")) vls = vls . " 2"
if (strstrt(vlcfgs, "4-")) vls = vls . " 4"
n = words(vls)
set terminal png enhanced size 420 * n + 60,560 font "DejaVuSans,9"
set output png
set multiplot layout 1,n title sprintf("16x16 mesh: %s-source multicast, destination group %s; completion time vs message size (bytes)", src eq "1" ? "one" : (src eq "100%" ? "all" : src), grp) font "DejaVuSans,11"
set logscale xy
set xtics ("32" 32, "128" 128, "512" 512, "2K" 2048, "8K" 8192, "32K" 32768, "128K" 131072)
set format y "10^{%L}"
unset xlabel  # in the title: the key below would cover it
set ylabel "completion time (ns)"
set grid
set key below horizontal box font "DejaVuSans,8" maxrows 3 width -4 spacing 1.1
sel(s, v) = sprintf("< awk -F, '$1 == \"%s\" && $2 == \"%s\" && $3 == \"%s\" && $4 == \"%s\" {print $5, $6}' '%s'", s, src, grp, v, csv)
col(s) = s eq "mcast" ? "#c0392b" : "#1f5fbf"
ptype(m) = m eq "shared" ? 7 : (m eq "engine" ? 5 : 4)
col2(s, m) = m eq "shared" ? col(s) : (m eq "engine" ? (s eq "mcast" ? "#6e1a10" : "#0b2f6b") : (s eq "mcast" ? "#e8a090" : "#8fb5ea"))
mname(s, m) = m eq "shared" ? "shared VLs" : (m eq "engine" ? (s eq "mcast" ? "engine's VLs (SL per trunk row)" : "engine's VLs (SL (x+y) mod V of the source)") : "VL per direction")
name(s, m) = sprintf("%s, %s", s eq "mcast" ? "multicast" : "unicast", mname(s, m))
modes = "shared dedicated"
if (strstrt(vlcfgs, "-engine")) modes = modes . " engine"
name1(s) = s eq "mcast" ? "multicast (engine's trunk-row trees)" : "unicast"
# The paper's source trees (scheme mcast-paper), in multicast's colours with open
# circles (pt 6): the png terminal draws their dt 2 solid.
paper = "multicast, the paper's source trees"
do for [v in vls] {
  set title sprintf("%s virtual lane%s", v, v eq "1" ? "" : "s")
  if (v eq "1") {
    plot for [s in "unicast mcast"] sel(s, "1") using 1:2 with linespoints lc rgb col(s) pt 7 ps 0.7 lw 1.3 title name1(s), \
      sel("mcast-paper", "1") using 1:2 with linespoints lc rgb col("mcast") dt 2 pt 6 ps 0.9 lw 1.3 title paper
  } else {
    plot for [s in "unicast mcast"] for [m in modes] sel(s, v . "-" . m) using 1:2 with linespoints \
      lc rgb col2(s, m) pt ptype(m) ps 0.8 lw (m eq "dedicated" ? 1 : 2) title name(s, m), \
      for [m in "shared dedicated"] sel("mcast-paper", v . "-" . m) using 1:2 with linespoints \
      lc rgb col2("mcast", m) dt 2 pt 6 ps 0.9 lw (m eq "dedicated" ? 1 : 2) title sprintf("%s, %s", paper, mname("mcast", m))
  }
}
unset multiplot
