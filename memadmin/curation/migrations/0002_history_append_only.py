from django.db import migrations

# The model refuses updates and deletes; this trigger refuses them for raw SQL too, so the
# audit log stays append-only whatever code runs. (TRUNCATE, used by test teardown, is a
# statement-level operation and is not affected.)
FORBID = """
CREATE FUNCTION curation_history_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'curation_historyevent is append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER curation_history_append_only
    BEFORE UPDATE OR DELETE ON curation_historyevent
    FOR EACH ROW EXECUTE FUNCTION curation_history_append_only();
"""
ALLOW = """
DROP TRIGGER IF EXISTS curation_history_append_only ON curation_historyevent;
DROP FUNCTION IF EXISTS curation_history_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("curation", "0001_initial")]
    operations = [migrations.RunSQL(FORBID, ALLOW)]
