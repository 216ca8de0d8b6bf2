# seed 000/004: speedup of XY multicast over unicast vs message size, a
# curve per source/group combination; 1 VL and the most VLs run, shared.
# gnuplot -e "csv='...'; png='...'; combos='1:40% ...'; vlcfgs='1 2-shared ...'" seed000-speedup.gp
last = word(vlcfgs, words(vlcfgs))
if (strstrt(vlcfgs, "4-shared")) last = "4-shared"; else if (strstrt(vlcfgs, "2-shared")) last = "2-shared"
set terminal png enhanced size 1100,450 font "DejaVuSans,9"
set output png
set multiplot layout 1,2 title "16x16 mesh: speedup of XY multicast over unicast" font "DejaVuSans,11"
set logscale x
set logscale y
set xtics ("32" 32, "128" 128, "512" 512, "2K" 2048, "8K" 8192, "32K" 32768, "128K" 131072)
set xlabel "message size (bytes)"
set ylabel "completion time unicast / multicast"
set grid
set key top left box opaque font "DejaVuSans,8"
sp(c, v) = sprintf("< awk -F, -v s='%s' -v g='%s' -v v='%s' '$2 == s && $3 == g && $4 == v { t[$1, $5] = $6; m[$5] = 1 } END { for (x in m) if (t[\"mcast\", x] > 0) print x, t[\"unicast\", x] / t[\"mcast\", x] }' '%s' | sort -n", substr(c, 1, strstrt(c, ":") - 1), substr(c, strstrt(c, ":") + 1, strlen(c)), v, csv)
col(i) = word("#1f5fbf #c0392b #1e8449 #7d3c98 #d68910 #555555", i)
name(c) = sprintf("%s -> %s", substr(c, 1, strstrt(c, ":") - 1), substr(c, strstrt(c, ":") + 1, strlen(c)))
do for [v in "1 ".last] {
  set title (v eq "1" ? "1 VL" : sprintf("%s VLs, shared", substr(v, 1, 1)))
  plot for [i = 1:words(combos)] sp(word(combos, i), v) using 1:2 with linespoints lc rgb col(i) pt 7 ps 0.7 lw 1.3 title name(word(combos, i))
}
unset multiplot
