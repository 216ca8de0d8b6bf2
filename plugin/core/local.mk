# The routing core: pure C++17, no OpenSM headers. A libtool convenience
# library so the OpenSM plugin (.so) and the CLI link the same objects.
noinst_LTLIBRARIES += plugin/core/libibucore.la
plugin_core_libibucore_la_SOURCES = \
	plugin/core/error.h plugin/core/int_math.h plugin/core/find_cycle.h \
	plugin/core/fabric.h plugin/core/fabric.cc \
	plugin/core/netfile.h plugin/core/netfile.cc \
	plugin/core/guid2lid.h plugin/core/guid2lid.cc \
	plugin/core/lid_options.h plugin/core/lid_options.cc \
	plugin/core/output_files.h plugin/core/output_files.cc plugin/core/input_files.h plugin/core/fields.h \
	plugin/core/tables.h plugin/core/tables.cc \
	plugin/core/path_map.h plugin/core/path_map.cc \
	plugin/core/path_sls.h plugin/core/path_sls.cc \
	plugin/core/engine.h plugin/core/engine.cc \
	plugin/core/groups.h plugin/core/groups.cc \
	plugin/core/topology/fattree.h plugin/core/topology/fattree_labels.h plugin/core/topology/fattree.cc \
	plugin/core/topology/fattree_degraded.cc \
	plugin/core/topology/generate.h plugin/core/topology/generate.cc \
	plugin/core/topology/host_order.h plugin/core/topology/host_order.cc \
	plugin/core/topology/recognize.h plugin/core/topology/recognize.cc \
	plugin/core/routing/mlid.h plugin/core/routing/mlid.cc \
	plugin/core/routing/mlid_degraded.cc \
	plugin/core/topology/mesh.h plugin/core/topology/mesh.cc \
	plugin/core/routing/xymesh.h plugin/core/routing/xymesh.cc \
	plugin/core/verify/deadlock.h plugin/core/verify/deadlock.cc \
	plugin/core/verify/unicast.h plugin/core/verify/unicast.cc \
	plugin/core/verify/multicast.h plugin/core/verify/multicast.cc \
	plugin/core/verify/scheme.h plugin/core/verify/scheme.cc \
	plugin/core/verify/paths.h plugin/core/verify/paths.cc
