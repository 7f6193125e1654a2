package chaos

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgCounts reads pg_stat_activity: the live server-side connections of
// every PostgreSQL subject, by application_name (appPrefix + name).
func pgCounts(ctx context.Context, helper *pgxpool.Pool) (map[string]int, error) {
	rows, err := helper.Query(ctx, "SELECT application_name, count(*)::int FROM pg_stat_activity WHERE application_name LIKE $1 GROUP BY 1", appPrefix+"%")
	if err != nil {
		return nil, err
	}
	type row struct {
		App string
		N   int
	}
	all, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, r := range all {
		counts[strings.TrimPrefix(r.App, appPrefix)] = r.N
	}
	return counts, nil
}

// pollPG sets the live counts of the PostgreSQL subjects named in names.
// An error (the cluster restarts) leaves the counts as they were.
func pollPG(ctx context.Context, helper *pgxpool.Pool, live *liveCounter, names []string) {
	counts, err := pgCounts(ctx, helper)
	if err != nil {
		return
	}
	for _, n := range names {
		live.set(n, counts[n])
	}
}
