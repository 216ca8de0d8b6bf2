# libibunion.so: the OpenSM adapter. C where it touches OpenSM structures
# (their headers are C only), a C++ bridge to the core. OpenSM symbols stay
# undefined and resolve against the opensm process at dlopen time (the
# plugin API is exported by the opensm executable, not by libopensm.so).
lib_LTLIBRARIES += plugin/osm/libibunion.la
plugin_osm_libibunion_la_SOURCES = \
	plugin/osm/plugin.c plugin/osm/subnet.h plugin/osm/subnet.c \
	plugin/osm/bridge.h plugin/osm/bridge.cc
plugin_osm_libibunion_la_CPPFLAGS = $(AM_CPPFLAGS) $(OSM_CPPFLAGS)
plugin_osm_libibunion_la_CFLAGS = $(AM_CFLAGS) -Wno-unused-parameter
plugin_osm_libibunion_la_LIBADD = plugin/core/libibucore.la
plugin_osm_libibunion_la_LDFLAGS = -module -avoid-version -shared

# OpenSM dlopen()s "libibunion.so" by bare name: refresh the loader cache so
# an install into $(libdir) (e.g. /usr/local/lib) is found without
# LD_LIBRARY_PATH. A staged install (DESTDIR) leaves the cache alone.
install-exec-hook:
	@if test -z "$(DESTDIR)" && test -w /etc/ld.so.cache -o ! -e /etc/ld.so.cache; then \
	  /sbin/ldconfig 2>/dev/null || true; fi
