# seed 003 (Fig. 4): multicast testing — last join until the MFTs read back
# from every switch deliver exactly once — vs communicator size, OpenSM +
# ibunion (mlid) and OpenSM's default multicast, medians per size.
# gnuplot -e "csv='...'; png='...'; nets='ft-4-3 ft-8-3'" setup-ready.gp
set terminal png enhanced size 900,450 font "DejaVuSans,9"
set output png
set title "multicast testing under ibsim (median of repetitions)" font "DejaVuSans,11"
set logscale xy
set xlabel "communicator size (hosts)"
set ylabel "last join -> MFTs usable (ms)"
set grid
set key top left box opaque font "DejaVuSans,9"
sel(lab) = sprintf("< awk -F, '$1 == \"%s\" {print $2, $9}' '%s' | sort -n -k1,1 -k2,2 | awk '{n[$1]++; v[$1, n[$1]] = $2} END {for (s in n) print s, v[s, int((n[s] + 1) / 2)]}' | sort -n", lab, csv)
plot for [net in nets] sel(net."/mlid") using 1:2 with linespoints pt 7 lw 1.3 title net." mlid", \
     for [net in nets] sel(net."/default") using 1:2 with linespoints pt 4 dt 2 lw 1.3 title net." default"
