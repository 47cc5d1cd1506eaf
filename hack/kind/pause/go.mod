module kubesched.local/pause

go 1.24
