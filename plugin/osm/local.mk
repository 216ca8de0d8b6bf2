# (filled in by the plugin/osm work)
