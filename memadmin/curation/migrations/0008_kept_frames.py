from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("curation", "0007_kept_counts")]

    operations = [
        migrations.AddField(
            model_name="keptcounts",
            name="frames",
            field=models.TextField(default="[]"),
        ),
        # As the counts: rewritten and read whole, stored as they are.
        migrations.RunSQL(
            "ALTER TABLE curation_keptcounts ALTER COLUMN frames SET STORAGE EXTERNAL",
            migrations.RunSQL.noop,
        ),
        # Counts kept before frames were: read whole once more, as under other rules.
        migrations.RunSQL("DELETE FROM curation_keptcounts", migrations.RunSQL.noop),
    ]
