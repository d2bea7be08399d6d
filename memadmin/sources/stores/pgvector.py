"""A PostgreSQL table with a pgvector column, as home-grown agents and Mem0 keep them: an
id column, the text (a column, or "column.key" inside a JSONB column, as Mem0's
payload.data), a vector column and, if there is one, a JSONB metadata column."""

from __future__ import annotations

import json
from collections.abc import Iterator

from memadmin.sources.stores.points import Point, SourceError, split_text


def _split(spec: str) -> tuple[str, str]:
    """("payload", "data") for "payload.data"; ("content", "") for a plain column."""
    column, _, key = spec.partition(".")
    return column, key


class PgvectorStore:
    def __init__(self, dsn: str, table: str, fields: dict[str, str]):
        import psycopg
        from psycopg import sql

        try:
            self.connection = psycopg.connect(dsn, autocommit=True)
        except psycopg.Error as error:
            raise SourceError(f"cannot connect: {str(error).splitlines()[0]}") from None
        self.dsn, self.table_name, self.fields = dsn, table, fields
        schema, _, name = table.rpartition(".")
        self.table = sql.Identifier(*([schema] if schema else []), name)
        columns = self._columns(schema or "public", name)
        if not columns:
            self.connection.close()
            raise SourceError(f"no table {table!r}")
        self.id_column = fields.get("id", "id")
        self.text_column, self.text_key = _split(fields.get("text", "content"))
        self.vector_column = fields.get("vector", "embedding")
        metadata = fields.get("metadata", "")
        self.metadata_column = metadata if metadata in columns else ""
        created_column, self.created_key = _split(fields.get("created", ""))
        self.created_column = created_column if created_column in columns else ""
        for needed in (self.id_column, self.text_column, self.vector_column):
            if needed not in columns:
                self.connection.close()
                raise SourceError(f"table {table!r} has no column {needed!r}")

    def companion(self, table: str) -> PgvectorStore | None:
        """Another table of the same database and schema, or None where there is none."""
        schema, _, name = table.rpartition(".")
        if not self._columns(schema or "public", name):
            return None
        return PgvectorStore(self.dsn, table, self.fields)

    def _columns(self, schema: str, name: str) -> set[str]:
        rows = self.connection.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = %s",
            [schema, name],
        ).fetchall()
        return {row[0] for row in rows}

    def _select(self, with_vector: bool):
        from psycopg import sql

        parts = [
            sql.SQL("{}::text").format(sql.Identifier(self.id_column)),
            sql.Identifier(self.text_column),
            sql.Identifier(self.metadata_column) if self.metadata_column else sql.SQL("NULL"),
            sql.Identifier(self.created_column) if self.created_column else sql.SQL("NULL"),
            sql.SQL("{}::text").format(sql.Identifier(self.vector_column))
            if with_vector
            else sql.SQL("NULL"),
        ]
        return sql.SQL("SELECT {} FROM {}").format(sql.SQL(", ").join(parts), self.table)

    def count(self) -> int:
        from psycopg import sql

        query = sql.SQL("SELECT count(*) FROM {}").format(self.table)
        return self.connection.execute(query).fetchone()[0]

    def scan(self, batch_size: int) -> Iterator[list[Point]]:
        from psycopg import sql

        query = self._select(False) + sql.SQL(" ORDER BY {}").format(sql.Identifier(self.id_column))
        with self.connection.transaction(), self.connection.cursor(name="memadmin_pull") as cursor:
            cursor.execute(query)
            while rows := cursor.fetchmany(batch_size):
                yield [self._point(row) for row in rows]

    def fetch(self, ids: list[str]) -> dict[str, Point]:
        from psycopg import sql

        query = self._select(True) + sql.SQL(" WHERE {}::text = ANY(%s)").format(
            sql.Identifier(self.id_column)
        )
        points = {}
        for row in self.connection.execute(query, [ids]).fetchall():
            point = self._point(row)
            point.vector = json.loads(row[4]) if row[4] is not None else None
            points[point.id] = point
        return points

    def delete(self, ids: list[str]) -> None:
        from psycopg import sql

        self.connection.execute(
            sql.SQL("DELETE FROM {} WHERE {}::text = ANY(%s)").format(
                self.table, sql.Identifier(self.id_column)
            ),
            [ids],
        )

    def write(self, points: list[Point]) -> None:
        from psycopg import sql
        from psycopg.types.json import Jsonb

        columns = [self.id_column, self.vector_column]
        if self.text_key:  # the text lives in the JSONB column
            columns.append(self.text_column)
        else:
            columns.append(self.text_column)
            if self.metadata_column:
                columns.append(self.metadata_column)
        names = sql.SQL(", ").join(map(sql.Identifier, columns))
        updates = sql.SQL(", ").join(
            sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(c)) for c in columns[1:]
        )
        query = sql.SQL("INSERT INTO {} ({}) VALUES ({}) ON CONFLICT ({}) DO UPDATE SET {}").format(
            self.table,
            names,
            sql.SQL(", ").join(sql.Placeholder() * len(columns)),
            sql.Identifier(self.id_column),
            updates,
        )
        with self.connection.transaction():
            for point in points:
                vector = json.dumps(point.vector) if point.vector is not None else None
                if self.text_key:
                    values = [
                        point.id,
                        vector,
                        Jsonb({**point.metadata, self.text_key: point.text}),
                    ]
                else:
                    values = [point.id, vector, point.text]
                    if self.metadata_column:
                        values.append(Jsonb(point.metadata))
                self.connection.execute(query, values)

    def close(self) -> None:
        self.connection.close()

    def _point(self, row) -> Point:
        id_, text, metadata, created = row[0], row[1], row[2], row[3]
        if self.text_key:
            text, metadata = split_text(text or {}, self.text_key)
        metadata = dict(metadata or {})
        if self.created_key:
            created = metadata.get(self.created_key)
        elif created is not None and not isinstance(created, str):
            created = created.isoformat()
        return Point(id_, text or "", metadata, created=created)
