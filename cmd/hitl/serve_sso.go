package main

import (
	"cmp"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hitl-dev/hitl/internal/server"
)

// defaultOIDCScopes are the scopes asked of the identity provider when --oidc-scopes is not
// given: openid for the ID token, email and profile for the name and the person's details,
// groups for the groups claim (a provider that does not know it ignores it, or needs it
// dropped: docs/sso.md).
var defaultOIDCScopes = []string{"openid", "email", "profile", "groups"}

// ssoFlags adds the flags of single sign-on with an OpenID Connect provider to serve. The
// returned fill, called when serve runs, takes the client secret from HITL_OIDC_CLIENT_SECRET
// when its flag is not given: as the flag's default, --help would print it.
func ssoFlags(f *pflag.FlagSet, env *envFlags, c *server.Config) (fill func()) {
	s := &c.SSO
	f.StringVar(&s.Issuer, "oidc-issuer", os.Getenv("HITL_OIDC_ISSUER"), "the OpenID Connect provider people sign in to the inbox with, its issuer URL like https://login.example.com/realms/acme; off when empty (HITL_OIDC_ISSUER)")
	f.StringVar(&s.ClientID, "oidc-client-id", os.Getenv("HITL_OIDC_CLIENT_ID"), "hitl's client id at the provider; its redirect URI is <public URL>/login/oidc/callback (HITL_OIDC_CLIENT_ID)")
	f.StringVar(&s.ClientSecret, "oidc-client-secret", "", "hitl's client secret at the provider (HITL_OIDC_CLIENT_SECRET, which, unlike the flag, other users cannot see in the process list)")
	scopes := defaultOIDCScopes
	if v := os.Getenv("HITL_OIDC_SCOPES"); v != "" {
		scopes = strings.Split(v, ",")
	}
	f.StringSliceVar(&s.Scopes, "oidc-scopes", scopes, "scopes asked of the provider, comma-separated; openid is always asked (HITL_OIDC_SCOPES)")
	f.StringVar(&s.NameClaim, "oidc-name-claim", envOr("HITL_OIDC_NAME_CLAIM", "email"), "the ID token's claim that names the person in hitl, like email or preferred_username (HITL_OIDC_NAME_CLAIM)")
	f.StringVar(&s.GroupsClaim, "oidc-groups-claim", envOr("HITL_OIDC_GROUPS_CLAIM", "groups"), "the ID token's claim whose values are the person's groups; they replace those of the last sign-in (HITL_OIDC_GROUPS_CLAIM)")
	f.StringVar(&s.AdminGroup, "oidc-admin-group", os.Getenv("HITL_OIDC_ADMIN_GROUP"), "the group whose members get the role admin when they sign in; empty: signing in gives nobody that role (HITL_OIDC_ADMIN_GROUP)")
	f.StringVar(&s.ProviderName, "oidc-provider-name", envOr("HITL_OIDC_PROVIDER_NAME", "single sign-on"), "what the sign-in button names the provider: Sign in with <name> (HITL_OIDC_PROVIDER_NAME)")
	tokens := true
	env.parse("HITL_INBOX_TOKEN_LOGIN", func(v string) (err error) { tokens, err = strconv.ParseBool(v); return err })
	f.BoolVar(&tokens, "inbox-token-login", tokens, "let people sign in to the inbox with an API token; false leaves single sign-on (and answer links) only (HITL_INBOX_TOKEN_LOGIN)")
	return func() {
		s.ClientSecret = cmp.Or(s.ClientSecret, os.Getenv("HITL_OIDC_CLIENT_SECRET"))
		c.NoTokenLogin = !tokens
	}
}
