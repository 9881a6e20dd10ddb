package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// A page left open when its inbox session ends (signed out in another tab, expired, key
// revoked) goes to the sign-in form instead of knocking on the event stream for ever.
func TestAPageWhoseSessionEndedGoesToSignIn(t *testing.T) {
	srv := testserver.Start(t)
	_, token := srv.Key(hitl.KeyRequest{Name: "ada", Roles: []string{hitl.RoleResponder}})
	ctx := newBrowser(t)
	signInWithForm(t, ctx, srv.URL, token)
	waitText(t, ctx, "#live", "Live")

	keys, err := srv.Admin.Keys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Name == "ada" {
			if err := srv.Admin.RevokeKey(context.Background(), k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#token")))
	if u := get(t, ctx, chromedp.Location()); !strings.HasPrefix(u, srv.URL+"/login") {
		t.Fatalf("the page went to %s, not to the sign-in form", u)
	}
}
