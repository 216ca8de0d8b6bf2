# seed 003 (Figs. 5-6): effective latency per 1 KB broadcast (communicator
# creation + N broadcasts, divided by N) vs N, one panel per communicator
# size, for OpenSM + ibunion (mlid).
# gnuplot -e "csv='...'; png='...'; net='ft-8-3'; sizes='16 32 64 128'" effective.gp
n = words(sizes)
set terminal png enhanced size (n > 2 ? 1300 : 900),(n > 2 ? 900 : 450) font "DejaVuSans,9"
set output png
set multiplot layout (n > 2 ? 2 : 1),(n > 1 ? 2 : 1) title sprintf("%s under ibsim + OpenSM + ibunion: effective latency of a 1 KB broadcast", net) font "DejaVuSans,11"
set logscale xy
set xlabel "iterations (broadcasts per communicator)"
set ylabel "effective latency per broadcast (us)"
set format y "10^{%L}"
set grid
set key top right box opaque font "DejaVuSans,9"
sel(sz, col) = sprintf("< awk -F, '$1 == \"%s/mlid\" && $2 == \"%s\" {print $3, $%d}' '%s'", net, sz, col, csv)
do for [sz in sizes] {
  set title sprintf("communicator of %s hosts", sz)
  plot sel(sz, 4) using 1:2 with linespoints lc rgb "#555555" pt 4 ps 0.7 lw 1.3 title "point-to-point (Original)", \
       sel(sz, 5) using 1:2 with linespoints lc rgb "#c0392b" pt 7 ps 0.7 lw 1.3 title "Basic", \
       sel(sz, 6) using 1:2 with linespoints lc rgb "#1f5fbf" pt 5 ps 0.7 lw 1.3 title "Lazy", \
       sel(sz, 7) using 1:2 with linespoints lc rgb "#27ae60" pt 9 ps 0.9 lw 1.3 title "Pool"
}
unset multiplot
