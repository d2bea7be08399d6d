from django.core.management import call_command

from memadmin.store.commands import MemadminCommand

# The steps of the batch pipeline, in order; each is a command cron may also run alone.
PIPELINE = ["embed_memories", "find_duplicates", "propose_merges"]


class Command(MemadminCommand):
    help = "Run the batch pipeline once over every namespace (what cron would run)."

    def handle(self, *args, **options):
        for step in PIPELINE:
            call_command(step, stdout=self.stdout, stderr=self.stderr)
        self.stdout.write(f"pipeline done: {', '.join(PIPELINE)}")
