/*
 * libibunion.so: an OpenSM event plugin that registers ibunion's routing
 * engines (`routing_engine mlid` / `xymesh`, with OpenSM's fallback chain).
 *
 * This file and subnet.c are the only code that sees OpenSM structures.
 * They stay thin: read the discovered subnet into the core through the C
 * bridge, write the core's tables back. OpenSM loads event plugins in
 * osm_opensm_init() before it sets up routing engines, so registering from
 * create() makes the names available to `routing_engine`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <complib/cl_qmap.h>
#include <opensm/osm_config.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_log.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_version.h>

#include "plugin/osm/bridge.h"
#include "plugin/osm/subnet.h"

#if OSM_EVENT_PLUGIN_INTERFACE_VER != 2
#error OpenSM plugin interface version mismatch
#endif

#define NUM_ENGINES IBU_OSM_NUM_ENGINES

struct ibu_plugin {
	osm_opensm_t *osm;
	struct ibu_osm_engine engines[NUM_ENGINES];
};

static osm_log_level_t osm_level_of(int level)
{
	return level == IBU_LOG_ERROR ? OSM_LOG_ERROR :
	    level == IBU_LOG_INFO ? OSM_LOG_INFO : OSM_LOG_VERBOSE;
}

static void log_to_osm(void *ctx, int level, const char *msg)
{
	osm_opensm_t *osm = ctx;

	OSM_LOG(&osm->log, osm_level_of(level), "%s\n", msg);
}

/* The test OSM_LOG makes above (this file has no FILE_ID, so the global
 * level, not a per-module one), asked before the core builds a message. */
static int log_active_in_osm(void *ctx, int level)
{
	osm_opensm_t *osm = ctx;

	return osm_log_is_active(&osm->log, osm_level_of(level)) ? 1 : 0;
}

static int engine_setup(struct osm_routing_engine *re, osm_opensm_t *osm)
{
	struct ibu_osm_engine *e = re->context;

	(void)osm;
	ibu_osm_fill_callbacks(re, e);
	return 0;
}

/* More than one name in event_plugin_name: OpenSM loads each (names
 * separated by blanks or a comma, as its load_plugins splits them) and hands
 * all of them the one event_plugin_options string. */
static int plugins_share_options(const char *names)
{
	const char *sep = ", \t\n";
	size_t count = 0;

	while (names && *names) {
		names += strspn(names, sep);
		if (*names)
			count++;
		names += strcspn(names, sep);
	}
	return count > 1;
}

/* A name already taken is most often ibunion listed twice in
 * event_plugin_name: OpenSM loads it twice and the second copy finds its
 * engines' names registered by the first. */
static void log_registration(osm_opensm_t *osm, const char *name, cl_status_t status)
{
	if (status == CL_SUCCESS)
		OSM_LOG(&osm->log, OSM_LOG_INFO, "ibunion: routing engine '%s' registered\n", name);
	else if (status == CL_DUPLICATE)
		OSM_LOG(&osm->log, OSM_LOG_ERROR,
			"ibunion: cannot register routing engine '%s': an engine of that name is "
			"registered already (is ibunion listed twice in event_plugin_name?)\n", name);
	else
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibunion: cannot register routing engine '%s': %s\n",
			name, CL_STATUS_MSG(status));
}

static void *plugin_create(osm_opensm_t *osm)
{
	struct ibu_plugin *p = calloc(1, sizeof(*p));
	const char *options = osm->subn.opt.event_plugin_options;
	const int shared = plugins_share_options(osm->subn.opt.event_plugin_name);
	unsigned i;

	if (!p)
		return NULL;
	p->osm = osm;
	for (i = 0; i < NUM_ENGINES; i++) {
		external_routing_engine_module_t module;

		p->engines[i].osm = osm;
		p->engines[i].core = ibu_engine_new(ibu_osm_engine_names[i], options, shared,
						    osm->subn.opt.routing_engine_names, log_to_osm, osm);
		if (!p->engines[i].core)
			continue;
		ibu_engine_set_log_active(p->engines[i].core, log_active_in_osm);
		module.name = ibu_osm_engine_names[i];
		module.setup = engine_setup;
		module.context = &p->engines[i];
		log_registration(osm, ibu_osm_engine_names[i],
				 osm_register_external_routing_engine(osm, &module, &p->engines[i]));
	}
	return p;
}

static void plugin_delete(void *data)
{
	struct ibu_plugin *p = data;
	unsigned i;

	if (!p)
		return;
	for (i = 0; i < NUM_ENGINES; i++)
		ibu_engine_free(p->engines[i].core);
	free(p);
}

static void plugin_report(void *data, osm_epi_event_id_t event_id, void *event_data)
{
	(void)data;
	(void)event_id;
	(void)event_data;
}

osm_event_plugin_t osm_event_plugin = {
	OSM_VERSION,
	plugin_create,
	plugin_delete,
	plugin_report
};
